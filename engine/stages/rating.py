"""Stage 4, the path check: every candidate rated in ONE structured call, only when arms are cold.

The ratings are a prior and a filter for cold-start exploration; they never reach a policy's
update. (The system we learn from fed such pre-execution guesses to its statistics and ended up
calling every template "golden".) The same call names the tool the model would use, because the
tool policy's cold start needs the model's pick too, and one call is cheaper than two.
"""

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from engine.domain.ports import LLM
from engine.domain.records import ChatMessage, PathDefinition
from engine.domain.structured import ask_structured
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


@functools.lru_cache(maxsize=64)
def rating_model(count: int, tools: tuple[str, ...]) -> type[BaseModel]:
    """A model whose schema requires exactly `count` scores, in strategy order, and a tool.

    A list, not an object keyed by strategy: under constrained decoding every key is generated
    token by token, and a 13-strategy object took about 100 tokens against about 30 for the list
    (measured on the embedded model, where grammar-constrained tokens are several times slower
    than free ones). The prompt numbers the strategies so the order is explicit. Cached:
    building a pydantic model costs tens of milliseconds.

    >>> schema = rating_model(2, ("none",)).model_json_schema()["properties"]["scores"]
    >>> schema["minItems"], schema["maxItems"], schema["items"]["enum"]
    (2, 2, [1, 2, 3, 4, 5])
    """
    tool_type: Any = Literal[tuple(tools)] if tools else None
    return create_model(
        "PathRating",
        __config__=ConfigDict(extra="forbid"),
        scores=(list[Score], Field(min_length=count, max_length=count)),
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
        + f"\n\nReply with JSON: scores, a list of {len(paths)} scores in strategy order, "
        "and the tool."
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
    model = rating_model(len(paths), tuple(tools))
    parsed = ask_structured(
        llm,
        rating_messages(query, paths, tools),
        model,
        purpose="rate",
        max_tokens=24 + 3 * len(paths),
        timeout_s=timeout_s,
        retries=retries,
    )
    listed: list[int] = parsed.scores  # type: ignore[attr-defined]
    scores = {path.arm_id: int(score) for path, score in zip(paths, listed, strict=True)}
    return Rating(scores=scores, tool=getattr(parsed, "tool", None))
