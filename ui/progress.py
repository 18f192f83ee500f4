"""One plain-English line per decision stage, for live progress in the playground and the CLI.

A `DecisionListener` hears each `TraceStep` as its stage finishes, and each model call as it
starts (`on_call`, named by `CALL_TITLES`, so a 20 s call is never silent); `describe_stage`
turns the step into a line a first-time user can read ("Searched: 2 passages found", "Chose the path
`worked_example` from what it has learned"), without the engine's internal words. The playground
and `thinkpath ask` print the same lines, so the two never explain a stage differently.

While a stage works, `working_on` names it: the stages run in one order
(`engine.orchestration.pipeline`), so the stage after the one that last finished is the one at
work, and a display says so from its first second ("Choosing the tool", not "working").

>>> from engine import TraceStep
>>> describe_stage(TraceStep(stage="selection", reason="cold_start",
...                          outputs={"arm": "direct_answer", "propensity": 0.5}))[41:]
'(the paths are still new here, so it explored; it makes this pick 50% of the time in this state)'
>>> working_on(TraceStep(stage="selection", reason="done"))
'Choosing the tool'
"""

import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any

from engine import Cost, TraceStep
from ui.markup import clip, code_span, quoted
from ui.option_words import option_choice_words, options_words

__all__ = [
    "CALL_TITLES",
    "STAGE_TITLES",
    "ProgressQueue",
    "StagePrinter",
    "answer_notes",
    "chance_words",
    "check_setter",
    "describe_reason",
    "describe_stage",
    "kind_words",
    "model_words",
    "money_text",
    "seed_gate_words",
    "tool_facts",
    "working_on",
]

# What each stage is for, in the words shown before its result.
STAGE_TITLES = {
    "kind": "Kind of query",
    "model": "Chose the model",
    "options": "Read the options",
    "retirement": "Retired a path",
    "search": "Searched for background",
    "seed": "Thinking seed",
    "seed_check": "Checked the passages",
    "rating": "Rated the reasoning paths",
    "detour": "Considered a new path (detour)",
    "selection": "Chose the reasoning path",
    "tool_selection": "Chose the tool",
    "tool": "Ran the tool",
    "tool_fallback": "Fell back",
    "answer_direct": "Answered with the tool's result",
    "answer": "Wrote the answer",
    "checker": "Checked the answer against the expected one",
    "referee": "Judged the answer (referee)",
}

# What a model call is for (its request's purpose), named while it runs.
CALL_TITLES = {
    "options": "Reading the question's options",
    "seed": "Writing the thinking seed",
    "rate": "Rating the reasoning paths",
    "detour": "Writing a new path (detour)",
    "program": "Writing a program for the tool",
    "plan": "Planning the answer",
    "answer": "Writing the answer",
    "referee": "Judging the answer (referee)",
}

_REASONS = {
    "done": "done",
    "skipped": "skipped",
    "cached": "reused from an earlier decision",
    "chose_by_posterior": "chosen from what it has learned",
    # A cold pick is exploration, whatever led it (an exact tool that read the question, a redraw
    # among the arms a new kind may try, or a rating where the rating is on): the detail says
    # which, from the step's own "why"; this word claims no rating that did not run.
    "cold_start": "explored: the arms are still new here",
    "detour_trigger": "a new path was created",
    "retired": "retired",
    "weak_seed": "too weak to use",
    "budget_stop": "stopped: the budget ran out",
    "fault": "failed; the decision went on without it",
}


def describe_reason(reason: str) -> str:
    """A trace reason in plain words ("chose_by_posterior" -> "chosen from what it has learned")."""
    return _REASONS.get(reason, reason.replace("_", " "))


def describe_stage(step: TraceStep) -> str:
    """One line saying what a finished stage did and why, for a progress display."""
    title = STAGE_TITLES.get(step.stage, step.stage.replace("_", " ").capitalize())
    if step.stage == "tool" and step.reason == "fault":  # a refusal moves on to the next tool
        name = step.inputs.get("tool", "?")
        return f"{title} `{name}`: refused or failed ({step.error or 'no detail'})"
    if step.reason in ("fault", "budget_stop"):
        return f"{title}: {describe_reason(step.reason)} ({step.error or 'no detail'})"
    detail = _DETAILS.get(step.stage, _generic)(step.outputs, step)
    return f"{title}{detail}"


def kind_words(outputs: dict[str, Any]) -> str:
    """The kind of query a decision was made for, and why, in the trace's own words."""
    label = str(outputs.get("label") or outputs.get("id") or "?")
    origin = "the named task" if outputs.get("origin") == "task" else "the kind"
    new = ", new" if outputs.get("new") else ""
    # Not escaped: the trace table shows these words as text (the card's Markdown reads them
    # as the other stages' lines, which quote the query the same way).
    why = str(outputs.get("why") or "no reason recorded")
    return f"{origin} {code_span(label)}{new}: {why}"


def _kind(outputs: dict[str, Any], _step: TraceStep) -> str:
    return f": {kind_words(outputs)}"


def _options(outputs: dict[str, Any], step: TraceStep) -> str:
    if step.reason == "skipped":
        return f": none ({outputs.get('why', 'none found')})"
    return f": {options_words(outputs)}"


def _search(outputs: dict[str, Any], step: TraceStep) -> str:
    found = len(outputs.get("sources", []))
    failures = outputs.get("failures", [])
    tail = f"; {len(failures)} search(es) failed" if failures else ""
    searched = str(step.inputs.get("query", ""))
    what = f" for {quoted(clip(searched, 60))}" if searched else ""
    return f"{what}: {found} passage{'s' * (found != 1)} found{tail}"


def _seed_check(outputs: dict[str, Any], step: TraceStep) -> str:
    score = float(outputs.get("score", 0.0))
    if step.reason == "weak_seed":
        why = step.error or "the passages do not match the question"
        return f": not relevant enough to use ({why}); answering without background"
    return f": relevant enough (score {score:.2f})"


def _seed(outputs: dict[str, Any], step: TraceStep) -> str:
    if step.reason == "skipped":
        return f": skipped ({seed_gate_words(outputs)})"
    if step.reason == "weak_seed":
        return f": not used ({step.error or 'it did not fit the question'})"
    return ": written, a short brief for the answer" if outputs.get("brief") else ": none"


def _rating(outputs: dict[str, Any], step: TraceStep) -> str:
    if step.reason == "skipped":
        return f": skipped ({outputs.get('why', 'not needed')})"
    scores = outputs.get("scores", {})
    if step.reason == "cached":
        return f": reused, {len(scores)} paths rated once for this kind of question (no call)"
    cold = len(step.inputs.get("cold_paths", [])) + len(step.inputs.get("cold_tools", []))
    why = f", because {cold} arm{'s' * (cold != 1)} still lack scores" if cold else ""
    return f": {len(scores)} paths rated 1-5 by the model{why} (a first guess, not a reward)"


def _detour(outputs: dict[str, Any], step: TraceStep) -> str:
    if step.reason == "detour_trigger":
        arms = ", ".join(f"`{arm}`" for arm in outputs.get("new_arms", [])) or "none"
        return f": created {arms} because {step.inputs.get('trigger', 'the paths were failing')}"
    return f": not needed ({outputs.get('why', 'the paths are doing fine')})"


def chance_words(propensity: float) -> str:
    """How often the policy makes this pick in the state it was in, in words.

    >>> chance_words(1.0)
    'it makes this pick every time in this state'
    >>> chance_words(0.5)
    'it makes this pick 50% of the time in this state'
    """
    if propensity >= 0.9995:
        return "it makes this pick every time in this state"
    return f"it makes this pick {propensity:.0%} of the time in this state"


def seed_gate_words(outputs: dict[str, Any]) -> str:
    """Why the seed gate skipped the seed: it learns per kind of question whether one helps."""
    why = str(outputs.get("why", "")) or "the seed gate chose no seed"
    if "first decision" in why:  # no gate drew: the new kind's first decision made no call
        return why
    chance = outputs.get("p_seed")
    tail = f", building one {float(chance):.0%} of the time" if chance is not None else ""
    return f"{why}: it learns for each kind of question whether background helps{tail}"


def _choice(outputs: dict[str, Any], step: TraceStep) -> str:
    chance = outputs.get("propensity")
    tail = f"; {chance_words(float(chance))}" if chance is not None else ""
    noun = "paths" if step.stage == "selection" else "tools"
    why = str(outputs.get("why") or "") or (
        f"the {noun} are still new here, so it explored"
        if step.reason == "cold_start"
        else "from what it has learned"
    )
    return f" `{outputs.get('arm', '?')}` ({why}{tail})"


def _tool(outputs: dict[str, Any], step: TraceStep) -> str:
    name = step.inputs.get("tool", "?")
    if not outputs.get("ok"):
        return f" `{name}`: failed"
    gave = code_span(clip(str(outputs.get("output", "")), 80))
    return f" `{name}`: gave {gave}" + "".join(f"; {fact}" for fact in _parsed(outputs))


def _fallback(outputs: dict[str, Any], step: TraceStep) -> str:
    refused = step.inputs.get("refused", "?")
    share = float(outputs.get("propensity", 0.0))
    drawn = (
        f"drawn by what the tool choice has learned: {share:.0%} of the chance left to the"
        " tools not yet tried"
    )
    arm = outputs.get("arm", "?")
    if arm != "none":
        return f" to the tool `{arm}`, after `{refused}` refused ({drawn})"
    untried = outputs.get("untried")
    if untried is not None and set(untried) <= {"none"}:
        return f" to no tool, after `{refused}` refused: none was left, so the model answers alone"
    return f" to no tool, after `{refused}` refused, so the model answers alone ({drawn})"


def _answer_direct(outputs: dict[str, Any], _step: TraceStep) -> str:
    return f": not this time ({outputs.get('why', 'the result was not read whole')})"


def _parsed(outputs: dict[str, Any]) -> list[str]:
    parsed = outputs.get("fully_parsed")
    if parsed is None:
        return []
    return ["it read the whole question" if parsed else "it did NOT read the whole question"]


def tool_facts(step: TraceStep | None) -> list[str]:
    """How the tool got its result and whether it read the whole question, from its trace step
    ("provenance", "fully_parsed"); what is not recorded is said to be unknown."""
    outputs = step.outputs if step is not None else {}
    facts = [f"how: {outputs['provenance']}"] if outputs.get("provenance") else []
    parsed = outputs.get("fully_parsed")
    if parsed is True:
        facts.append("it read the whole question, so its result answers it")
    elif parsed is False:
        facts.append("it did NOT read the whole question: its result may answer something else")
    else:
        facts.append("whether it read the whole question is not known (the tool did not say)")
    return facts


def answer_notes(outputs: dict[str, Any]) -> list[str]:
    """How the answer ended, from the answer step's notes (`engine.stages.answer_text`)."""
    notes = []
    loop = outputs.get("loop")
    if loop:
        notes.append(f"the model repeated {loop['phrase']!r} {loop['times']} times")
    if outputs.get("finish_reason") == "loop":
        notes.append("the model began to loop, so its repeats were cut off")
    elif outputs.get("cut_off"):
        notes.append("it was cut off at the token limit, so its end is missing")
    echoed = int(outputs.get("echoed_lines", 0))
    if echoed:
        notes.append(f"{echoed} line{'s' * (echoed != 1)} repeating the prompt removed")
    copied = int(outputs.get("copied_lines", 0))
    if copied:
        notes.append(
            f"{copied} line{'s' * (copied != 1)} copying the tool's search result removed "
            "(a result to check is not the answer)"
        )
    if outputs.get("degenerate"):
        notes.append(f"degenerate: {outputs['degenerate']}")
    return notes


def _answer(outputs: dict[str, Any], step: TraceStep) -> str:
    if step.inputs.get("direct"):
        how = outputs.get("provenance") or "read from the whole question"
        return f": the tool's result itself, with no model call (it {how})"
    chose = option_choice_words(outputs)
    if chose is not None:
        return f": {chose}"
    text = str(outputs.get("answer", ""))
    return f": {len(text)} characters" + "".join(f"; {note}" for note in answer_notes(outputs))


def _checker(outputs: dict[str, Any], _step: TraceStep) -> str:
    reward = float(outputs.get("reward", 0.0))
    set_by = outputs.get("set_by")
    who = f"; set by {check_setter(str(set_by))}" if set_by else ""
    return f": {'correct' if reward >= 1.0 else 'wrong'} (score {reward:.2f}{who})"


def check_setter(set_by: str) -> str:
    """Who set an exact check, in words: the program that called the engine, or the client who
    gave the expected answer (a client's check is its own claim: `engine.domain.evidence`).

    >>> check_setter("checker"), check_setter("user"), check_setter("user:alice")
    ('the calling program', 'you', 'alice')
    """
    if set_by == "checker":
        return "the calling program"
    return "you" if set_by == "user" else set_by.removeprefix("user:")


def _referee(outputs: dict[str, Any], step: TraceStep) -> str:
    if step.reason == "skipped":
        return f": skipped ({outputs.get('why', 'not needed')})"
    reward = float(outputs.get("reward", 0.0))
    why = outputs.get("audit") or "no expected answer to check it against"
    return f": score {reward:.2f} ({why})"


def _retirement(outputs: dict[str, Any], step: TraceStep) -> str:
    return f" `{step.inputs.get('arm', '?')}`: {outputs.get('why', 'no reason given')}"


def model_words(outputs: dict[str, Any]) -> str:
    """The model a decision runs on, why, and its price on the kind, from its trace step.

    >>> model_words({"model": "local/smollm2", "why": "pinned by the client",
    ...              "expected_seconds": {"local/smollm2": 0.71}, "charges": {}})
    '`local/smollm2` (pinned by the client; 0.7 s a decision on this kind)'
    """
    model = str(outputs.get("model", "?"))
    seconds = (outputs.get("expected_seconds") or {}).get(model)
    charge = (outputs.get("charges") or {}).get(model)
    price = "" if seconds is None else f"; {float(seconds):.1f} s a decision on this kind"
    if charge:
        price += f", charged {float(charge):.2f} at the draw"
    return f"`{model}` ({outputs.get('why', 'chosen')}{price})"


def _model(outputs: dict[str, Any], _step: TraceStep) -> str:
    return f": {model_words(outputs)}"


def _generic(_outputs: dict[str, Any], step: TraceStep) -> str:
    return f": {describe_reason(step.reason)}"


_DETAILS: dict[str, Callable[[dict[str, Any], TraceStep], str]] = {
    "kind": _kind,
    "model": _model,
    "options": _options,
    "search": _search,
    "seed": _seed,
    "seed_check": _seed_check,
    "rating": _rating,
    "detour": _detour,
    "selection": _choice,
    "tool_selection": _choice,
    "tool": _tool,
    "tool_fallback": _fallback,
    "answer_direct": _answer_direct,
    "answer": _answer,
    "checker": _checker,
    "referee": _referee,
    "retirement": _retirement,
}


# What runs after each stage finishes, until the next one does (the pipeline's order); a model
# call, when one starts, is named more exactly by `CALL_TITLES`.
_NEXT = {
    "kind": "Choosing the model",
    "model": "Reading the options",
    "options": "Deciding on a thinking seed",
    "search": "Checking the passages",
    "seed_check": "Writing the thinking seed",
    "seed": "Choosing the reasoning path",
    "rating": "Choosing the reasoning path",
    "detour": "Choosing the reasoning path",
    "selection": "Choosing the tool",
    "answer_direct": "Writing the answer",
    "answer": "Checking the answer",
    "checker": "Saving the decision",
    "referee": "Saving the decision",
}
FIRST_STAGE = "Finding the kind of query"


def working_on(step: TraceStep | None) -> str:
    """The stage at work once `step` has finished (None: the decision has just begun).

    >>> working_on(None), working_on(TraceStep(stage="answer", reason="done"))
    ('Finding the kind of query', 'Checking the answer')
    >>> working_on(TraceStep(stage="tool_selection", reason="cold_start",
    ...                      outputs={"arm": "units+direct"}))
    'Running the tool `units`'
    """
    if step is None:
        return FIRST_STAGE
    if step.stage == "seed_check" and step.reason != "done":  # too weak: no brief is written
        return _NEXT["seed"]
    if step.stage in ("tool_selection", "tool_fallback"):
        tool = str(step.outputs.get("arm", "none")).split("+")[0]
        return "Writing the answer" if tool == "none" else f"Running the tool `{tool}`"
    if step.stage == "tool":
        return "Writing the answer" if step.outputs.get("ok") else "Falling back to another tool"
    return _NEXT.get(step.stage, "Going on to the next stage")


def money_text(cost: Cost) -> str:
    """What a decision cost in money, in words: a local model's zero price reads "free (local)".

    >>> money_text(Cost(calls=2, cost_usd=0.0)), money_text(Cost(calls=1))
    ('free (local)', 'price unknown')
    >>> money_text(Cost(calls=3, cost_usd=0.0123, unpriced_calls=1))
    '$0.0123 or more'
    >>> money_text(Cost())  # a tool's own result answered: nothing was asked of a model
    'free (no model call)'
    """
    if cost.calls == 0:
        return "free (no model call)"
    if cost.cost_usd is None:
        return "price unknown"
    if cost.cost_usd == 0 and not cost.unpriced_calls:
        return "free (local)"  # a local model reports a price of zero, not a missing one
    return f"${cost.cost_usd:.4f}" + (" or more" if cost.unpriced_calls else "")


class StagePrinter:
    """A `DecisionListener` for a terminal: one line per finished stage, then the answer's tokens.

    `write` is e.g. `sys.stderr.write`; keep progress off stdout when stdout carries the answer.

    >>> import io
    >>> out = io.StringIO()
    >>> StagePrinter(out.write).on_stage(TraceStep(stage="search", reason="done"))
    >>> out.getvalue()
    '- Searched for background: 0 passages found\\n'
    >>> out = io.StringIO()
    >>> printer = StagePrinter(out.write)
    >>> printer.on_token("Answer: 7")
    >>> printer.on_stage(TraceStep(stage="answer", reason="done"))
    >>> out.getvalue().splitlines()[0]
    'Answer: 7'
    """

    def __init__(self, write: Callable[[str], object]) -> None:
        self._write = write
        self._mid_line = False  # streamed answer text not yet ended by a line break

    def on_stage(self, step: TraceStep) -> None:
        # A stage line after streamed tokens starts on a line of its own.
        self._write(f"{chr(10) if self._mid_line else ''}- {describe_stage(step)}\n")
        self._mid_line = False

    def on_token(self, text: str) -> None:
        self._write(text)
        if text:
            self._mid_line = not text.endswith("\n")


class ProgressQueue:
    """A `DecisionListener` that hands steps, model calls and answer tokens to another thread,
    in order.

    The decision runs on a worker thread (`run`); the caller iterates its events and gets each
    ("call", purpose), ("stage", TraceStep) and ("token", str) as it arrives, then
    ("done", result) or ("error", exception); with `tick_s`, also ("tick", None) after each
    `tick_s` seconds with nothing else, so a display can count the seconds of a long call. The
    callbacks only enqueue, so they are quick and cannot raise.
    """

    def __init__(self) -> None:
        self._events: queue.Queue[tuple[str, Any]] = queue.Queue()

    def on_stage(self, step: TraceStep) -> None:
        self._events.put(("stage", step))

    def on_token(self, text: str) -> None:
        self._events.put(("token", text))

    def on_call(self, purpose: str) -> None:
        self._events.put(("call", purpose))

    def run(
        self, work: Callable[["ProgressQueue"], object], tick_s: float | None = None
    ) -> Iterator[tuple[str, Any]]:
        """Run `work(self)` on a worker thread; yield its events until it returns or raises."""

        def target() -> None:
            try:
                self._events.put(("done", work(self)))
            except Exception as error:  # handed to the caller, which decides what it means
                self._events.put(("error", error))

        threading.Thread(target=target, name="decision", daemon=True).start()
        while True:
            try:
                kind, value = self._events.get(timeout=tick_s)
            except queue.Empty:  # only with a tick: nothing new, but time has passed
                yield "tick", None
                continue
            yield kind, value
            if kind in ("done", "error"):
                return
