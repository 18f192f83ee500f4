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
    """What the rating call said: a score per path (by arm id) and the tool it would use."""

    scores: dict[str, int]
    tool: str | None
    tool_argument: str | None = None  # tools take the query; kept for a model that suggests one


def rating_model(count: int, tools: Sequence[str]) -> type[BaseModel]:
    """A model whose schema requires a score for strategies "1".."count" and a tool.

    Keys are the strategies' numbers in the prompt rather than their ids: under constrained
    decoding every key is still generated token by token, and numbers are a fraction of the
    tokens of long ids (measured: the id-keyed reply for 13 templates ran past a 60 s deadline
    on the embedded model on a loaded machine).

    >>> sorted(rating_model(2, ["none"]).model_json_schema()["$defs"]["PathScores"]["required"])
    ['1', '2']
    """
    score_fields: dict[str, Any] = {
        f"strategy_{number}": (Score, Field(alias=str(number))) for number in range(1, count + 1)
    }
    scores = create_model(
        "PathScores", __config__=ConfigDict(extra="forbid", populate_by_name=False), **score_fields
    )
    tool_type: Any = Literal[tuple(tools)] if tools else None
    return create_model(
        "PathRating",
        __config__=ConfigDict(extra="forbid"),
        scores=(scores, ...),
        tool=(tool_type, None if not tools else ...),
    )


def rating_messages(
    query: str, paths: Sequence[PathDefinition], tools: Mapping[str, str]
) -> tuple[ChatMessage, ...]:
    lines = [
        f"{number}. {p.arm_id}: {neutralise(p.description, 200)}"
        for number, p in enumerate(paths, start=1)
    ]
    tool_lines = [f"- {name}: {neutralise(text, 160)}" for name, text in tools.items()]
    user = (
        f"Question: {neutralise(query, 1000)}\n\nStrategies:\n"
        + "\n".join(lines)
        + "\n\nTools:\n"
        + "\n".join(tool_lines or ["- none: answer without a tool"])
        + "\n\nReply with JSON: a score for every strategy by its number, and the tool."
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
    model = rating_model(len(paths), list(tools))
    parsed = ask_structured(
        llm,
        rating_messages(query, paths, tools),
        model,
        purpose="rate",
        max_tokens=24 + 6 * len(paths),
        timeout_s=timeout_s,
        retries=retries,
    )
    by_number = parsed.scores.model_dump(by_alias=True)  # type: ignore[attr-defined]
    scores = {path.arm_id: int(by_number[str(n)]) for n, path in enumerate(paths, start=1)}
    return Rating(scores=scores, tool=getattr(parsed, "tool", None))
