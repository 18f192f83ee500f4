"""Stage 4, the path check: every candidate rated in ONE structured call, only when arms are cold,
and only once per query family and candidate set (`RatingCache`).

The ratings are a prior and a filter for cold-start exploration; they never reach a policy's
update. (The system we learn from fed such pre-execution guesses to its statistics and ended up
calling every template "golden".) The same call names the tool the model would use, because the
tool policy's cold start needs the model's pick too, and one call is cheaper than two.
"""

import functools
import hashlib
import re
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from engine.domain.ports import LLM
from engine.domain.records import ChatMessage, PathDefinition
from engine.domain.structured import ask_structured
from engine.errors import ConfigError
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


# Each strategy and tool is shown by the first clause of its description, cut at a word. The
# call's cost is mostly reading its prompt (a repeat of the same prompt, whose prefix llama.cpp
# keeps, took 2 s against 12-17 s), and the full descriptions made it 2,460 characters for the
# 13 built-in templates against 1,667: on the embedded model the call's median went from 7.4 to
# 4.1 times a bare call, in one run side by side (docs/benchmarks.md), and the replies stayed
# the same pattern: this model rates by position, not by meaning.
DESCRIPTION_CHARS = 80
TOOL_CHARS = 60
_CLAUSE_END = re.compile(r"(?<!e\.g)(?<!i\.e)[.:;](?=\s|$)")


def gist(text: str, limit: int) -> str:
    """The first clause of `text`, neutralised, cut at a word to about `limit` characters.

    >>> gist("Answer at once: best when the answer is a single fact.", 80)
    'Answer at once'
    >>> gist("Evaluates arithmetic exactly, e.g. '2 ^ 10'. Give it the expression.", 80)
    "Evaluates arithmetic exactly, e.g. '2 ^ 10'"
    >>> gist("Copy out the exact letters, digits or items the question is about", 30)
    'Copy out the exact letters…'
    """
    clause = _CLAUSE_END.split(neutralise(text, 4 * limit), maxsplit=1)[0].strip()
    if len(clause) <= limit:
        return clause
    return clause[: clause.rfind(" ", 0, limit)].rstrip(" ,;") + "…"


def rating_messages(
    query: str, paths: Sequence[PathDefinition], tools: Mapping[str, str]
) -> tuple[ChatMessage, ...]:
    lines = [
        f"{number}. {p.arm_id}: {gist(p.description, DESCRIPTION_CHARS)}"
        for number, p in enumerate(paths, start=1)
    ]
    tool_lines = [f"- {name}: {gist(text, TOOL_CHARS)}" for name, text in tools.items()]
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


def candidate_fingerprint(paths: Sequence[PathDefinition], tools: Mapping[str, str]) -> str:
    """A digest of exactly what the rating prompt shows besides the query: the numbered paths
    (id and description, in order) and the tools. Any change gives another fingerprint.

    >>> from engine.domain.records import PathDefinition as P
    >>> a = P("a", "A", "step by step", "think")
    >>> candidate_fingerprint([a], {}) == candidate_fingerprint([a], {"none": "no tool"})
    False
    """
    digest = hashlib.sha256()
    for path in paths:
        digest.update(f"p\0{path.arm_id}\0{path.description}\0".encode())
    for name, text in tools.items():
        digest.update(f"t\0{name}\0{text}\0".encode())
    return digest.hexdigest()


class RatingCache:
    """The last rating per (namespace, query family), kept while its candidate set is unchanged.

    Why a cache is right here: the rating is a prior, not a reward. It orders which cold arm is
    tried first and never reaches a policy's update, and on the embedded model it cost about
    7 s of a 12 s cold decision, asked again for every query of a family until all 13 paths
    were warm, with replies that did not depend on the question (docs/engine.md). One rating
    per family and candidate set keeps what the prior is for at one call per family.

    What it survives, and what not: it lives in this process only (an engine's chooser owns
    one). A restart, or another process on the same store, rates each family once more; that
    costs one call per family, where a stored rating would need its own invalidation across
    processes for a value that teaches nothing. A different candidate set (a template added or
    retired, a detour arm born, a tool added) has another fingerprint: the family's old entry
    is dropped and the next cold decision rates again. At most `size` entries, least recently
    used first out (`EngineConfig.rating_cache_size`; a family is one of a dozen kinds of query,
    so the bound is on memory, not on the hit rate). Thread-safe: the service decides on
    several request threads.

    >>> cache = RatingCache(2)
    >>> cache.put("ns", "arithmetic", "f1", Rating({"a": 4}, None))
    >>> cache.get("ns", "arithmetic", "f1").scores, cache.get("ns", "arithmetic", "f2")
    ({'a': 4}, None)
    >>> cache.get("ns", "arithmetic", "f1") is None  # the candidate set changed: dropped
    True
    """

    def __init__(self, size: int) -> None:
        if size < 0:
            raise ConfigError(f"a rating cache holds at least 0 entries, got {size}")
        self._size = size
        self._lock = threading.Lock()
        self._entries: OrderedDict[tuple[str, str], tuple[str, Rating]] = OrderedDict()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def get(self, namespace: str, family: str, fingerprint: str) -> Rating | None:
        """The family's rating for this candidate set, or None (a stale one is dropped)."""
        key = (namespace, family)
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            if entry[0] != fingerprint:
                del self._entries[key]
                return None
            self._entries.move_to_end(key)
            return entry[1]

    def put(self, namespace: str, family: str, fingerprint: str, rating: Rating) -> None:
        """Keep `rating` for the family and candidate set, evicting the least recently used."""
        if self._size == 0:
            return
        key = (namespace, family)
        with self._lock:
            self._entries[key] = (fingerprint, rating)
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)
