"""What the Ask tab shows for a decision: the labelled result card, the cost, the trace table.

Plain functions from engine models to Markdown or rows, so tests can read them without a browser.
Words are chosen for a first-time user: the engine's reasons ("chose_by_posterior") and the seed
check's measures ("34% of the query terms") are translated, the raw values stay in the trace.
"""

import html
import re
from collections import Counter
from typing import Any

from engine.domain.checkers import find_dates, parse_number_words
from engine.domain.models import Choice, Decision, OutcomeResult
from engine.stages.answer_text import find_loop
from ui.markup import code_span
from ui.progress import (
    STAGE_TITLES,
    answer_notes,
    chance_words,
    check_setter,
    describe_reason,
    describe_stage,
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
    "infer_answer_kind",
    "standing_scores",
    "trace_rows",
]

TRACE_COLUMNS = ["stage", "outcome", "reason", "seconds", "LLM calls"]
SHOWN_ANSWER_CHARS = 700  # longer answers (often a small model looping) are folded away
_SHORT_REASON = 4  # a referee "reason" shorter than this explains nothing ("x")
_NUMBER = re.compile(r"^[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s*/\s*\d+)?%?$")
_LETTER = re.compile(r"^\(?[A-Ja-j]\)?$")


def infer_answer_kind(expected: str) -> str:
    """The checker kind an expected answer most likely needs when the user chose none.

    A number (digits or words) is "numeric", a lone option letter "choice", a text that is one
    date "date", anything else an "exact" text match.

    >>> [infer_answer_kind(x) for x in ["4", "1,234.5", "seven", "B", "(c)", "2024-03-11", "Paris"]]
    ['numeric', 'numeric', 'numeric', 'choice', 'choice', 'date', 'exact']
    """
    text = expected.strip()
    if _NUMBER.match(text) or parse_number_words(text) is not None:
        return "numeric"
    if _LETTER.match(text):
        return "choice"
    if len(find_dates(text)) == 1 and not re.search(r"[A-Za-z]{3,}\s+[A-Za-z]{3,}\s", text):
        return "date"
    return "exact"


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
    if len(answer) <= SHOWN_ANSWER_CHARS and not loop:
        return _hard_breaks(answer) + tail
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
        f"{_hard_breaks(cut.rstrip())}\n\n*... {why}; folded.*"
        + (f"\n\n*Note: {others}.*" if others else "")
        + f"\n\n<details><summary>Show the whole answer</summary>\n\n<pre>{html.escape(answer)}"
        "</pre>\n\n</details>"
    )


def _hard_breaks(text: str) -> str:
    """Keep the model's line breaks: Markdown would run its lines together into one."""
    return "  \n".join(text.splitlines())


def _choice_line(label: str, choice: Choice) -> str:
    why = {
        "chose_by_posterior": "chosen by the learning policy from the scores so far",
        "cold_start": "still new, so the model's own rating of the options led",
    }.get(choice.reason, describe_reason(choice.reason))
    return f"**{label}:** {code_span(choice.arm_id)} - {why}; {chance_words(choice.propensity)}"


def _tool_lines(decision: Decision) -> list[str]:
    if decision.tool.arm_id == "none":
        return [_choice_line("Tool", decision.tool).replace("`none`", "none")]
    lines = [_choice_line("Tool", decision.tool)]
    steps = [step for step in decision.trace if step.stage == "tool"]
    run = decision.tool_run
    # A refusal falls back at once to the next tool: say each refusal, so that the output shown
    # below is never taken for the chosen tool's own.
    refused = steps[:-1] if run is not None else steps
    for step in refused:
        name = step.inputs.get("tool", "the tool")
        lines.append(f"  - {code_span(str(name))} refused: {step.error or 'no detail'}")
    if run is None:
        if refused:
            lines.append("  - no tool was left to try, so the model answered alone")
        return lines
    if refused:
        lines.append(f"  - fell back to {code_span(run.tool)}")
    lines.append(f"  - input: {code_span(run.argument)}")
    if run.ok:
        lines.append(f"  - output: {code_span(run.output)} ({run.seconds:.2f} s)")
    else:
        lines.append(f"  - failed: {run.error or 'no detail'}")
    lines += [f"  - {fact}" for fact in tool_facts(steps[-1] if steps else None)]
    return lines


def _seed_lines(decision: Decision) -> list[str]:
    seed = decision.seed
    if seed.brief is None:
        why = _why_no_seed(decision)
        detail = "; ".join(r for r in seed.check_reasons if r not in why)
        return [
            f"**Thinking seed:** none - {why}, so the answer was written without background "
            "notes." + (f" *(check: {detail})*" if detail else "")
        ]
    steps = [step for step in decision.trace if step.stage == "seed"]
    dropped = steps[-1].outputs.get("dropped", []) if steps else []
    check = "the brief passed its check (not empty, short, sharing terms with the question)"
    if dropped:
        check += f"; {len(dropped)} unsupported sentence{'s' * (len(dropped) != 1)} dropped"
    lines = [
        f"**Thinking seed** ({check}" + (", rebuilt once" if seed.rebuilt else "") + f"): "
        f"{seed.brief}"
    ]
    for source in seed.sources:
        title = source.title.strip().strip("()[] ") or source.source
        flags = f" - flagged: {', '.join(source.flags)}" if source.flags else ""
        lines.append(f"  - {title} - {code_span(source.source)}{flags}")
    return lines


def _why_no_seed(decision: Decision) -> str:
    """Which step left the decision without a seed, in plain words (the trace's own)."""
    found = len(decision.seed.sources)
    passages = f"{found} passage{'s' * (found != 1)}"
    stages = {step.stage: step for step in decision.trace}
    brief = stages.get("seed")
    if brief is not None and brief.reason == "skipped":
        return seed_gate_words(brief.outputs)
    if brief is not None and brief.reason in ("weak_seed", "fault"):
        why = brief.error or "it did not fit"
        return f"the model's brief of the {passages} found was not usable ({why})"
    if not found:
        return "the search found nothing"
    return f"the {passages} found did not match the question well"


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
            f'its reason: "{reason}"'
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
            "refused or failed: it teaches the tool choice, not the answer's score"
        )
    return f"**Score:** {outcome.reward:.2f}, by {outcome.source}"


def standing_scores(outcomes: list[OutcomeResult]) -> list[OutcomeResult]:
    """Each source's latest score, in the order the sources first scored: a correction takes
    the place of the score it corrects (the log keeps both)."""
    latest: dict[str, OutcomeResult] = {}
    for outcome in sorted(outcomes, key=lambda outcome: outcome.seq):
        latest[outcome.source] = outcome
    return list(latest.values())


def card_markdown(decision: Decision, kind_note: str = "") -> str:
    """The labelled result card: answer, path and tool with why, seed and sources, scores."""
    answers = [step for step in decision.trace if step.stage == "answer"]
    notes = answers[-1].outputs if answers else {}
    lines = [f"#### Answer  <small>(decision {code_span(decision.id)})</small>", ""]
    lines += [answer_markdown(decision.answer, notes), ""]
    lines += [_choice_line("Reasoning path", decision.path), ""]
    lines += [*_tool_lines(decision), ""]
    lines += [*_seed_lines(decision), ""]
    standing = standing_scores(decision.outcomes)
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


def cost_markdown(decision: Decision) -> str:
    """Calls, tokens and time; money as "free (local)" when no call had a price."""
    cost = decision.cost
    money = money_text(cost)
    return (
        f"**Cost:** {cost.calls} model calls, {cost.prompt_tokens} prompt + "
        f"{cost.completion_tokens} answer tokens, {cost.seconds:.2f} s, {money}"
    )


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
            detail += f' - its reason: "{said}"'
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
