"""Query -> search queries -> top passages with their sources: the seed stage's retrieval step.

Cheap and deterministic (no LLM): the same query always asks the same searches and, over the same
index, gets the same passages. The engine turns the result into the cited brief (the seed).
"""

import re
from dataclasses import dataclass, field

from retrieval.combine import merge_rankings
from retrieval.errors import RetrievalError, SearchUnavailableError
from retrieval.port import Passage, Searcher
from retrieval.query import content_words, validate_limit, validate_query
from retrieval.sanitize import DEFAULT_MAX_CHARS, sanitize, sanitize_passage

MAX_SEARCH_CHARS = 300
# Only the head of a huge query is read for rewriting: a pasted book is not a better query.
MAX_READ_CHARS = 20_000
_SENTENCE_END = re.compile(r"(?<=[.?!])\s+")


@dataclass(frozen=True)
class Gathered:
    """The passages found for a query, sanitised, with the searches that found them.

    `flags` maps a passage's source to what the sanitiser found in its original text (e.g.
    `instruction-like`); `failures` lists searches that failed while others answered.
    """

    queries: tuple[str, ...]
    passages: tuple[Passage, ...]
    flags: dict[str, tuple[str, ...]] = field(default_factory=dict)
    failures: tuple[str, ...] = ()


def _shorten(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    cut = text[:max_chars]
    space = cut.rfind(" ")
    return cut[:space] if space > max_chars // 2 else cut


def search_queries(query: str, *, max_queries: int = 3) -> list[str]:
    """The searches to run for `query`: itself, its content words, and its last question.

    >>> search_queries("I have 3 apples. How many days are in a leap year?")
    ['I have 3 apples. How many days are in a leap year?', 'apples days leap year', \
'How many days are in a leap year?']
    """
    text = " ".join(validate_query(query[:MAX_READ_CHARS], max_chars=MAX_READ_CHARS).split())
    candidates = [_shorten(text, MAX_SEARCH_CHARS), " ".join(content_words(text, limit=8))]
    sentences = [s for s in _SENTENCE_END.split(text) if s]
    questions = [s for s in sentences if s.endswith("?")]
    if len(sentences) > 1 and questions:
        candidates.append(_shorten(questions[-1], MAX_SEARCH_CHARS))
    unique: dict[str, str] = {}
    for candidate in candidates:
        if candidate.strip():
            unique.setdefault(candidate.lower(), candidate)
    return list(unique.values())[:max_queries]


def gather(
    searcher: Searcher,
    query: str,
    *,
    limit: int = 5,
    max_queries: int = 3,
    max_chars: int = DEFAULT_MAX_CHARS,
) -> Gathered:
    """Run the searches for `query` on `searcher` and keep the `limit` best distinct passages.

    Passages are merged by reciprocal rank over the searches, one per source, then sanitised.
    Raises `QueryError` for an empty query and `SearchUnavailableError` when every search failed.
    """
    validate_limit(limit)
    queries = search_queries(query, max_queries=max_queries)
    rankings: list[list[Passage]] = []
    failures: list[str] = []
    for search in queries:
        try:
            rankings.append(searcher.search(search, limit))
        except SearchUnavailableError as error:
            failures.append(f"{search!r}: {error}")
        except RetrievalError as error:
            # A derived search that a backend rejects must not sink the others.
            failures.append(f"{search!r}: {type(error).__name__}: {error}")
    if not rankings:
        raise SearchUnavailableError("every search failed: " + "; ".join(failures))
    merged = merge_rankings(rankings, limit)
    flags = {p.source: sanitize(p.text, max_chars=max_chars).flags for p in merged}
    return Gathered(
        queries=tuple(queries),
        passages=tuple(sanitize_passage(p, max_chars=max_chars) for p in merged),
        flags={source: found for source, found in flags.items() if found},
        failures=tuple(failures),
    )
