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
from ui.progress import STAGE_TITLES, describe_reason, describe_stage, money_text

__all__ = [
    "TRACE_COLUMNS",
    "answer_markdown",
    "card_markdown",
    "cost_markdown",
    "infer_answer_kind",
    "trace_rows",
]

TRACE_COLUMNS = ["stage", "outcome", "reason", "seconds", "LLM calls"]
SHOWN_ANSWER_CHARS = 700  # longer answers (often a small model looping) are folded away
REPEATS_TO_FOLD = 3  # a line seen this often is a loop, however short the answer
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


def answer_markdown(answer: str | None) -> str:
    """The answer, with a long or looping one cut to its start and the rest folded below."""
    if not answer:
        return "*No answer: the answer stage failed (see the trace).*"
    lines = [line.strip() for line in answer.splitlines() if line.strip()]
    looping = any(count >= REPEATS_TO_FOLD for count in Counter(lines).values())
    if len(answer) <= SHOWN_ANSWER_CHARS and not looping:
        return _hard_breaks(answer)
    cut = answer[:SHOWN_ANSWER_CHARS]
    if looping:  # show up to the second time the repeated line appears
        repeated = next(line for line, count in Counter(lines).items() if count >= REPEATS_TO_FOLD)
        first = answer.find(repeated)
        second = answer.find(repeated, first + len(repeated))
        cut = answer[: min(second, SHOWN_ANSWER_CHARS)] if second > 0 else cut
    why = "it repeats itself" if looping else f"it has {len(answer)} characters"
    return (
        f"{_hard_breaks(cut.rstrip())}\n\n*... folded because {why}.*\n\n"
        f"<details><summary>Show the whole answer</summary>\n\n<pre>{html.escape(answer)}</pre>"
        "\n\n</details>"
    )


def _hard_breaks(text: str) -> str:
    """Keep the model's line breaks: Markdown would run its lines together into one."""
    return "  \n".join(text.splitlines())


def _choice_line(label: str, choice: Choice) -> str:
    why = {
        "chose_by_posterior": "chosen by the learning policy from the scores so far",
        "cold_start": "still new, so the model's own rating of the options led",
    }.get(choice.reason, describe_reason(choice.reason))
    return f"**{label}:** `{choice.arm_id}` - {why} (chance of this pick {choice.propensity:.0%})"


def _tool_lines(decision: Decision) -> list[str]:
    if decision.tool.arm_id == "none":
        return [_choice_line("Tool", decision.tool).replace("`none`", "none")]
    lines = [_choice_line("Tool", decision.tool)]
    run = decision.tool_run
    if run is not None:
        outcome = "ran fine" if run.ok else f"failed: {run.error or 'no detail'}"
        lines.append(f"  - `{run.tool}({run.argument})` {outcome} in {run.seconds:.2f} s")
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
    lines = [
        f"**Thinking seed** (relevance {seed.relevance:.2f}"
        + (", rebuilt once" if seed.rebuilt else "")
        + f"): {seed.brief}"
    ]
    for source in seed.sources:
        title = source.title.strip().strip("()[] ") or source.source
        flags = f" - flagged: {', '.join(source.flags)}" if source.flags else ""
        lines.append(f"  - {title} - `{source.source}`{flags}")
    return lines


def _why_no_seed(decision: Decision) -> str:
    """Which step left the decision without a seed, in plain words."""
    found = len(decision.seed.sources)
    passages = f"{found} passage{'s' * (found != 1)}"
    stages = {step.stage: step for step in decision.trace}
    brief = stages.get("seed")
    if brief is not None and brief.reason in ("weak_seed", "fault"):
        why = brief.error or "it did not fit"
        return f"the model's brief of the {passages} found was not usable ({why})"
    if not found:
        return "the search found nothing"
    return f"the {passages} found did not match the question well"


def _score_line(decision: Decision, outcome: OutcomeResult) -> str:
    if outcome.source == "checker":
        return f"**Score:** {outcome.reward:.2f}, by the exact check against your expected answer"
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
    return f"**Score:** {outcome.reward:.2f}, by {outcome.source}"


def card_markdown(decision: Decision, kind_note: str = "") -> str:
    """The labelled result card: answer, path and tool with why, seed and sources, scores."""
    lines = [f"#### Answer  <small>(decision `{decision.id}`)</small>", "", ""]
    lines[1] = answer_markdown(decision.answer)
    lines += [_choice_line("Reasoning path", decision.path), ""]
    lines += [*_tool_lines(decision), ""]
    lines += [*_seed_lines(decision), ""]
    scores = [_score_line(decision, outcome) for outcome in decision.outcomes]
    lines += scores or ["**Score:** not scored yet - use the buttons below."]
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
    """One row per stage: stage, outcome, reason (the progress line's words), seconds, calls."""
    rows = []
    for step in decision.trace:
        title = STAGE_TITLES.get(step.stage, step.stage)
        detail = describe_stage(step).removeprefix(title).lstrip(": ").strip()
        said = str(step.outputs.get("reason", "")).strip() if step.stage == "referee" else ""
        if len(said) >= _SHORT_REASON:
            detail += f' - its reason: "{said}"'
        rows.append(
            [title, describe_reason(step.reason), detail, round(step.seconds, 3), step.calls]
        )
    return rows
