"""Stage 4, the path check: every candidate rated in ONE structured call, only when arms are cold.

The ratings are a prior and a filter for cold-start exploration; they never reach a policy's
update. (The system we learn from fed such pre-execution guesses to its statistics and ended up
calling every template "golden".) The same call names the tool the model would use, because the
tool policy's cold start needs the model's pick too, and one call is cheaper than two.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from engine.contracts import PathDefinition
from engine.llm.structured import ask_structured
from engine.ports import LLM, ChatMessage
from engine.stages.prompting import DATA_RULE, neutralise

Score = Literal[1, 2, 3, 4, 5]  # an enum in the schema: small models ignore minimum/maximum

RATING_SYSTEM = (
    "You judge which reasoning strategy suits a question. Rate every strategy from 1 (unsuitable) "
    "to 5 (ideal), and pick the one tool that would help most, or 'none'. " + DATA_RULE
)


@dataclass(frozen=True)
class Rating:
    """What the rating call said: a score per path, the tool it would use and its argument."""

    scores: dict[str, int]
    tool: str | None
    tool_argument: str | None


def rating_model(arm_ids: Sequence[str], tools: Sequence[str]) -> type[BaseModel]:
    """A pydantic model whose schema requires one score per arm id and a tool from the list."""
    score_fields: dict[str, Any] = {
        f"arm_{index}": (Score, Field(alias=arm)) for index, arm in enumerate(arm_ids)
    }
    scores = create_model(
        "PathScores",
        __config__=ConfigDict(extra="forbid", populate_by_name=False),
        **score_fields,
    )
    tool_type: Any = Literal[tuple(tools)] if tools else None
    return create_model(
        "PathRating",
        __config__=ConfigDict(extra="forbid"),
        scores=(scores, ...),
        tool=(tool_type, None if not tools else ...),
        tool_argument=(str, Field(default="", max_length=200)),
    )


def rating_messages(
    query: str, paths: Sequence[PathDefinition], tools: Mapping[str, str]
) -> tuple[ChatMessage, ...]:
    lines = [
        f"- {p.arm_id}: {neutralise(p.name, 80)}: {neutralise(p.description, 200)}" for p in paths
    ]
    tool_lines = [f"- {name}: {neutralise(text, 160)}" for name, text in tools.items()]
    user = (
        f"Question: {neutralise(query, 1000)}\n\nStrategies:\n"
        + "\n".join(lines)
        + "\n\nTools:\n"
        + "\n".join(tool_lines or ["- none: answer without a tool"])
        + "\n\nReply with JSON: scores for every strategy, the tool, and the tool's input."
    )
    return (ChatMessage("system", RATING_SYSTEM), ChatMessage("user", user))


def rate_paths(
    llm: LLM,
    query: str,
    paths: Sequence[PathDefinition],
    tools: Mapping[str, str],
    *,
    retries: int,
    timeout_s: float,
) -> Rating:
    """One structured call rating all `paths`; raises `LLMError` (the pipeline degrades)."""
    arm_ids = [p.arm_id for p in paths]
    model = rating_model(arm_ids, list(tools))
    parsed = ask_structured(
        llm,
        rating_messages(query, paths, tools),
        model,
        purpose="rate",
        max_tokens=24 + 12 * len(arm_ids),
        timeout_s=timeout_s,
        retries=retries,
    )
    scores = parsed.scores.model_dump(by_alias=True)  # type: ignore[attr-defined]
    tool = getattr(parsed, "tool", None)
    argument = getattr(parsed, "tool_argument", "") or None
    return Rating(
        scores={arm: int(scores[arm]) for arm in arm_ids}, tool=tool, tool_argument=argument
    )
