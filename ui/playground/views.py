"""What the Ask tab shows for a decision: the labelled result card, the cost, the trace table.

Plain functions from engine models to Markdown or rows, so tests can read them without a browser.
Words are chosen for a first-time user: the engine's reasons ("chose_by_posterior") and the seed
check's measures ("34% of the query terms") are translated, the raw values stay in the trace.

One truth per card: what the card says about the tool, the seed and the path is read from the
decision's trace, in the progress log's own words (`ui.progress.describe_stage`), so the card and
the progress lines cannot tell two stories (the bus question's card once said "no tool was left"
where its progress said a fallback drew "none"). The model's text is shown as text
(`ui.markup.plain_text`), never as Markdown.
"""

import html
import re
from collections import Counter
from typing import Any

from engine import (
    Choice,
    Decision,
    OutcomeResult,
    TraceStep,
    find_loop,
)
from ui.markup import clip, code_span, plain_text, quoted
from ui.option_words import option_choice_words, options_words
from ui.progress import (
    STAGE_TITLES,
    answer_notes,
    chance_words,
    check_setter,
    describe_reason,
    describe_stage,
    kind_words,
    model_words,
    money_text,
    seed_gate_words,
    tool_facts,
)

__all__ = [
    "TRACE_COLUMNS",
    "answer_markdown",
    "card_markdown",
    "check_set_by",
    "cost_markdown",
    "shown_answer",
    "standing_scores",
    "time_line",
    "trace_rows",
]

TRACE_COLUMNS = ["stage", "outcome", "reason", "seconds", "LLM calls"]
SHOWN_ANSWER_CHARS = 700  # longer answers (often a small model looping) are folded away
_SHORT_REASON = 4  # a referee "reason" shorter than this explains nothing ("x")
# The answer's own label: the card's heading already says "Answer".
_LABEL = re.compile(r"^\s*(?:\*\*)?answer\s*:\s*(?:\*\*)?\s*", re.IGNORECASE)
_NOT_WORDS = re.compile(r"[^\w]+")
TOOL_STAGES = ("tool", "tool_fallback", "answer_direct")
SEED_STAGES = ("search", "seed_check", "seed")
_VERIFIERS = ("checker", "user")  # sources whose score checks the answer; a referee's is a view


def shown_answer(answer: str | None) -> str:
    r"""The answer as the card shows it and the copy field holds it: said once.

    A one-line answer loses its "Answer:" label (the card's heading says it). A final
    "Answer: X" line that repeats the line before it word for word is dropped, so a sentence
    the model wrote and then labelled shows once; a final line that adds something (working,
    then its result) stays.

    >>> shown_answer("Answer: 210")
    '210'
    >>> shown_answer("Canberra is the capital.\n\nAnswer: Canberra is the capital.")
    'Canberra is the capital.'
    >>> shown_answer("3.5 hours * 60 = 210 minutes.\nAnswer: 210")
    '3.5 hours * 60 = 210 minutes.\nAnswer: 210'
    """
    text = (answer or "").strip()
    if "\n" not in text:
        return _LABEL.sub("", text, count=1)
    body, _, last = text.rpartition("\n")
    said = _words(_LABEL.sub("", last, count=1))
    labelled = _LABEL.match(last) is not None
    before = [line for line in body.splitlines() if line.strip()]
    if labelled and said and before and _words(before[-1]) == said:
        return body.strip()
    return text


def _words(text: str) -> str:
    """Text compared for repeats: its words in lower case, without punctuation or markup."""
    return " ".join(_NOT_WORDS.sub(" ", text.casefold()).split())


def answer_markdown(answer: str | None, notes: dict[str, Any] | None = None) -> str:
    """The answer, with a long or looping one cut to its start and the rest folded below.

    `notes` are the answer step's outputs (`engine.stages.answer_text`): a loop it found, a
    cut-off at the token limit, echoed prompt lines it removed. For a decision recorded before
    those notes existed, the loop is looked for here.
    """
    notes = dict(notes or {})
    if not answer:
        if notes.get("echoed_lines"):
            return "*No answer: the model only wrote the prompt back (see the trace).*"
        return "*No answer: the answer stage failed (see the trace).*"
    if "loop" not in notes:
        found = find_loop(answer)
        notes["loop"] = None if found is None else {"phrase": found.phrase, "times": found.times}
    said = "; ".join(answer_notes(notes))
    tail = f"\n\n*Note: {said}.*" if said else ""
    loop = notes["loop"]
    answer = shown_answer(answer)
    if len(answer) <= SHOWN_ANSWER_CHARS and not loop:
        return plain_text(answer) + tail
    cut = answer[:SHOWN_ANSWER_CHARS]
    if loop:  # show up to the second time the repeated phrase appears
        first = answer.find(loop["phrase"])
        second = answer.find(loop["phrase"], first + len(loop["phrase"]))
        cut = answer[: min(second, SHOWN_ANSWER_CHARS)] if second > 0 else cut
        why = f"the model repeated {loop['phrase']!r} {loop['times']} times"
    else:
        why = f"it has {len(answer)} characters"
    others = "; ".join(note for note in answer_notes({**notes, "loop": None}))
    return (
        f"{plain_text(cut.rstrip())}\n\n*... {why}; folded.*"
        + (f"\n\n*Note: {others}.*" if others else "")
        + f"\n\n<details><summary>Show the whole answer</summary>\n\n<pre>{html.escape(answer)}"
        "</pre>\n\n</details>"
    )


def _choice_line(label: str, choice: Choice, decision: Decision) -> str:
    """The pick and why, in its selection step's own words where it gave them."""
    stage = "selection" if choice.role == "path" else "tool_selection"
    steps = _steps(decision, (stage,))
    said = str(steps[-1].outputs.get("why") or "") if steps else ""
    # A cold pick names a rating only where its step says one led (the rating is off by
    # default); without its own words, it was exploration among arms still new here.
    why = said or {
        "chose_by_posterior": "chosen by the learning policy from the scores so far",
        "cold_start": "still new here, so it explored",
    }.get(choice.reason, describe_reason(choice.reason))
    return f"**{label}:** {code_span(choice.arm_id)} - {why}; {chance_words(choice.propensity)}"


def _steps(decision: Decision, stages: tuple[str, ...]) -> list[TraceStep]:
    return [step for step in decision.trace if step.stage in stages]


def _answered_directly(decision: Decision) -> bool:
    """Whether the answer is the tool's result itself, written with no model call."""
    return any(step.stage == "answer" and step.inputs.get("direct") for step in decision.trace)


def _path_line(decision: Decision) -> str:
    """The path, unless it played no part: a direct answer made no model call to follow it."""
    if _answered_directly(decision):
        return (
            "**Reasoning path:** none used - the tool's result is the answer itself, with no "
            f"model call (the path drawn, {code_span(decision.path.arm_id)}, played no part)"
        )
    return _choice_line("Reasoning path", decision.path, decision)


def _tool_lines(decision: Decision) -> list[str]:
    """The tool choice, then each tool step in the progress log's words: every refusal, every
    fallback, the tool that gave the output (its input, output and how), a direct answer not
    taken; all from the trace."""
    head = _choice_line("Tool", decision.tool, decision)
    lines = [head.replace("`none`", "none") if decision.tool.arm_id == "none" else head]
    for step in _steps(decision, TOOL_STAGES):
        lines.append(f"  - {describe_stage(step)}")
        if step.stage != "tool" or step.reason == "fault":
            continue
        lines.append(f"  - input: {code_span(str(step.inputs.get('argument', '')))}")
        if step.outputs.get("ok"):
            output = code_span(str(step.outputs.get("output", "")))
            lines.append(f"  - output: {output} ({step.seconds:.2f} s)")
        lines += [f"  - {fact}" for fact in tool_facts(step)]
    return lines


def _producer(decision: Decision) -> str:
    """Which tool gave the output the answer saw, from the trace: the last one that ran fine."""
    ran = [s for s in _steps(decision, ("tool",)) if s.reason != "fault" and s.outputs.get("ok")]
    if not ran:
        return "no tool gave an output, so the model answered alone"
    return f"the output came from {code_span(str(ran[-1].inputs.get('tool', '?')))}"


def _seed_lines(decision: Decision) -> list[str]:
    """The seed's verdict once, then the steps that led to it in the progress log's words.

    The seed step's own line is the verdict (its brief, or why there is none), so it is said
    in the first line only; the search and the passages' check follow it, and the check's
    reasons are said by its line, not again beside the verdict.
    """
    led = [step for step in _steps(decision, SEED_STAGES) if step.stage != "seed"]
    steps = [f"  - {describe_stage(step)}" for step in led]
    seed = decision.seed
    if seed.brief is None:
        why = _why_no_seed(decision)
        checked = any(step.stage == "seed_check" for step in led)
        detail = "" if checked else "; ".join(r for r in seed.check_reasons if r not in why)
        return [
            f"**Thinking seed:** none - {why}, so the answer was written without background "
            "notes." + (f" *(check: {detail})*" if detail else ""),
            *steps,
        ]
    briefs = _steps(decision, ("seed",))
    dropped = briefs[-1].outputs.get("dropped", []) if briefs else []
    check = "the brief passed its check (not empty, short, sharing terms with the question)"
    if dropped:
        check += f"; {len(dropped)} unsupported sentence{'s' * (len(dropped) != 1)} dropped"
    lines = [
        f"**Thinking seed** ({check}"
        + (", rebuilt once" if seed.rebuilt else "")
        + "): "
        + plain_text(seed.brief),
        *steps,
    ]
    for source in seed.sources:
        title = source.title.strip().strip("()[] ") or source.source
        flags = f" - flagged: {', '.join(source.flags)}" if source.flags else ""
        lines.append(f"  - source: {plain_text(title)} - {code_span(source.source)}{flags}")
    return lines


def _why_no_seed(decision: Decision) -> str:
    """Which step left the decision without a seed, in plain words (the trace's own)."""
    found = len(decision.seed.sources)  # the passages the seed check judged
    passages = f"{found} passage{'s' * (found != 1)}"
    stages = {step.stage: step for step in decision.trace}
    brief = stages.get("seed")
    if brief is not None and brief.reason == "skipped":
        return seed_gate_words(brief.outputs)
    if brief is not None and brief.reason in ("weak_seed", "fault", "budget_stop"):
        why = brief.error or "it did not fit"
        return f"the passages were relevant, but the model's brief of them was not usable ({why})"
    if not found:
        return "the search found nothing"
    return f"the {passages} found did not match the question well"


def _verdict(decision: Decision, standing: list[OutcomeResult]) -> str:
    """Whether a check verified the answer: an exact check or a person's score does; nothing
    else does (a referee's score is the model's view, a tool's result its own reading)."""
    by = {o.source.split(":")[0]: o for o in standing if o.source.split(":")[0] in _VERIFIERS}
    if not decision.answer:
        return ""
    for source in _VERIFIERS:
        outcome = by.get(source)
        if outcome is None:
            continue
        who = "your score"
        if source == "checker" or outcome.source == check_set_by(decision):
            who = "the exact check against your expected answer"
        if outcome.reward >= 1.0:
            return f"**Verified:** {who} says it is right."
        if outcome.reward <= 0.0:
            return f"**Wrong:** {who} says so."
        return f"**Partly right:** {who} gives it {outcome.reward:.2f}."
    how = (
        "the tool's own reading of the question"
        if _answered_directly(decision)
        else "the model's own text"
    )
    return (
        f"*Unverified:* no check confirmed it; it is {how}. Give an expected answer to check "
        "it, or score it below."
    )


def check_set_by(decision: Decision) -> str | None:
    """Who set the decision's exact check (the trace's checker step), if it had one; a decision
    stored before checks said so has "checker" for a check of the caller's."""
    checks = [step for step in decision.trace if step.stage == "checker" and step.outputs]
    return str(checks[-1].outputs.get("set_by", "checker")) if checks else None


def _check_line(decision: Decision, outcome: OutcomeResult) -> str | None:
    """The score line of an exact check, saying who set it; None for any other score."""
    set_by = check_set_by(decision)
    if outcome.source == "checker":
        if not any("set_by" in step.outputs for step in decision.trace):  # stored before
            return (
                f"**Score:** {outcome.reward:.2f}, by the exact check against your expected answer"
            )
        return (
            f"**Score:** {outcome.reward:.2f}, by the exact check set by the calling program "
            "(its own checker, which outranks any user's score)"
        )
    if set_by is None or outcome.source != set_by:
        return None
    who = check_setter(set_by)  # a client's expected answer: its claim, its own to correct
    if outcome.revision == 0:
        how = "score again" if who == "you" else "post a replacing score"
        return (
            f"**Score:** {outcome.reward:.2f}, by the exact check against the expected answer "
            f"{who} gave (the check was set by {who}, and only {who} can correct it: {how})"
        )
    return (
        f"**Score:** {outcome.reward:.2f}, by {who}, correcting the check against the "
        f"expected answer {who} gave (correction {outcome.revision})"
    )


def _score_line(decision: Decision, outcome: OutcomeResult) -> str:
    checked = _check_line(decision, outcome)
    if checked is not None:
        return checked
    if outcome.source == "referee":
        steps = [step for step in decision.trace if step.stage == "referee"]
        reason = str(steps[-1].outputs.get("reason", "")).strip() if steps else ""
        said = (
            f"its reason: {plain_text(quoted(reason))}"
            if len(reason) >= _SHORT_REASON
            else "it gave no usable reason"
        )
        return (
            f"**Score:** {outcome.reward:.2f}, by the referee (the model judging the answer, "
            f"counted at weight {outcome.weight:g}); {said}"
        )
    if outcome.source == "user":
        return f"**Score:** {outcome.reward:.2f}, by you"
    if outcome.source.startswith("user:"):
        return f"**Score:** {outcome.reward:.2f}, by {outcome.source.removeprefix('user:')}"
    if outcome.source == "tool":  # the picked tool refused or failed: a fact about the tool
        return (
            f"**Tool outcome:** {outcome.reward:.2f} for {code_span(decision.tool.arm_id)}, which "
            f"refused or failed; {_producer(decision)}. It teaches the tool choice, not the "
            "answer's score"
        )
    return f"**Score:** {outcome.reward:.2f}, by {outcome.source}"


def standing_scores(outcomes: list[OutcomeResult]) -> list[OutcomeResult]:
    """Each source's latest score, in the order the sources first scored: a correction takes
    the place of the score it corrects (the log keeps both)."""
    latest: dict[str, OutcomeResult] = {}
    for outcome in sorted(outcomes, key=lambda outcome: outcome.seq):
        latest[outcome.source] = outcome
    return list(latest.values())


def _kind_line(decision: Decision, size: int | None) -> list[str]:
    """Which kind of query the decision was made for, and why (its trace's kind step)."""
    steps = [step for step in decision.trace if step.stage == "kind"]
    if not steps:
        return []  # a decision stored before kinds
    outputs = steps[-1].outputs
    others = ""
    if size is not None and size > 1 and outputs.get("origin") == "discovered":
        example = plain_text(quoted(clip(str(outputs.get("example", "")), 80)))
        others = f" It groups {size} questions, like {example} and {size - 1} more."
    return [f"**Kind of query:** {kind_words(outputs)}.{others}", ""]


def card_markdown(decision: Decision, kind_note: str = "", kind_size: int | None = None) -> str:
    """The labelled result card: answer, path and tool with why, seed and sources, scores;
    `kind_size` is how many decisions the decision's kind of query has (the engine's `kinds`)."""
    answers = [step for step in decision.trace if step.stage == "answer"]
    notes = answers[-1].outputs if answers else {}
    standing = standing_scores(decision.outcomes)
    lines = [f"#### Answer  <small>(decision {code_span(decision.id)})</small>", ""]
    lines += [answer_markdown(decision.answer, notes), ""]
    verdict = _verdict(decision, standing)
    lines += [verdict, ""] if verdict else []
    lines += _kind_line(decision, kind_size)
    lines += _model_lines(decision)
    lines += _options_lines(decision)
    lines += [_path_line(decision), ""]
    lines += [*_tool_lines(decision), ""]
    lines += [*_seed_lines(decision), ""]
    scores = [_score_line(decision, outcome) for outcome in standing]
    # A tool's own outcome scores the tool, not the answer; with no checker, and a referee not
    # asked where it was never measured, the answer waits for the user.
    if all(outcome.source == "tool" for outcome in standing):
        scores.append("**Score:** not scored yet - use the buttons below.")
    # One paragraph each: consecutive lines would run together into one in Markdown.
    lines += [line for score in scores for line in (score, "")][:-1]
    if kind_note:
        lines += ["", kind_note]
    if decision.degraded:
        lines += ["", f"**Degraded:** {'; '.join(decision.degraded_reasons)}"]
    return "\n".join(lines)


def _model_lines(decision: Decision) -> list[str]:
    """The model every call ran on, why, how likely, and its seconds on the kind: from the
    model step, as the progress log says it (nothing for a decision made before models)."""
    steps = _steps(decision, ("model",))
    if decision.model is None or not steps:
        return []
    chance = chance_words(decision.model.propensity)
    return [f"**Model:** {model_words(steps[-1].outputs)}; {chance}", ""]


def _options_lines(decision: Decision) -> list[str]:
    """The options the question offered and, where an option procedure answered, the one it
    chose and its share: from the options and answer steps, as the progress log says them."""
    offered = [step for step in _steps(decision, ("options",)) if step.reason == "done"]
    if not offered:
        return []
    line = f"**Options:** {plain_text(options_words(offered[-1].outputs))}"
    answers = _steps(decision, ("answer",))
    chose = option_choice_words(answers[-1].outputs) if answers else None
    if chose is not None:
        line += f"; {plain_text(chose)}"
    return [line, ""]


def cost_markdown(decision: Decision, waited_s: float | None = None) -> str:
    """The time the user waited and what the decision cost: calls, tokens, money ("free
    (local)" when no call had a price); one paragraph each, so another line can join them.

    `waited_s` is the wall clock from pressing Ask to the card (`Actions.ask_live`): a decision
    that made no model call can still keep someone waiting, and the model's seconds alone
    ("0.00 s") said otherwise. Without it (a card drawn again later), the model's time alone.
    """
    return "\n\n".join([time_line(decision, waited_s), _cost_line(decision)])


def time_line(decision: Decision, waited_s: float | None) -> str:
    """How long the user waited, with the model's share of it."""
    cost = decision.cost
    model = (
        "no model call"
        if cost.calls == 0
        else f"{_calls(cost.calls)} took {cost.seconds:.1f} s of it"
    )
    if waited_s is None:
        return f"**Time:** {model.replace(' of it', '')}"
    return f"**Time:** you waited {waited_s:.1f} s, from Ask to this card ({model})"


def _cost_line(decision: Decision) -> str:
    cost = decision.cost
    return (
        f"**Cost:** {_calls(cost.calls)}, {cost.prompt_tokens} prompt + "
        f"{cost.completion_tokens} answer tokens, {money_text(cost)}"
    )


def _calls(count: int) -> str:
    return f"{count} model call{'s' * (count != 1)}"


def trace_rows(decision: Decision) -> list[list[Any]]:
    """One row per stage: stage, outcome, reason (the progress line's words), seconds, calls.

    Plain text (a table cell shows no Markdown), and a stage that ran twice says why the second
    time: the search runs again on the question's keywords when the first passages fit badly.
    """
    rows = []
    seen: Counter[str] = Counter()
    for step in decision.trace:
        seen[step.stage] += 1
        title = STAGE_TITLES.get(step.stage, step.stage)
        detail = describe_stage(step).removeprefix(title).lstrip(": ").strip()
        said_already = describe_reason(step.reason)  # the outcome column has it: not twice
        if detail.startswith(f"{said_already} (") and detail.endswith(")"):
            detail = detail.removeprefix(f"{said_already} (")[:-1]
        if step.stage == "search" and seen[step.stage] > 1:
            title = "Searched again, on the keywords alone"
            detail += " (the first passages did not match the question well enough)"
        said = str(step.outputs.get("reason", "")).strip() if step.stage == "referee" else ""
        if len(said) >= _SHORT_REASON:
            detail += f" - its reason: {quoted(said)}"
        rows.append(
            [
                title,
                describe_reason(step.reason),
                detail.replace("`", ""),
                round(step.seconds, 3),
                step.calls,
            ]
        )
    return rows
