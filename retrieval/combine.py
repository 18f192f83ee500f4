"""Searchers made of searchers: a fallback chain and a merger that deduplicates by source.

Both implement the `Searcher` port, so the engine never knows how many backends stand behind it.
A `QueryError` is the caller's mistake, not a backend's failure: it is raised at once instead of
being hidden behind the next backend.
"""

from collections.abc import Sequence
from urllib.parse import urlsplit, urlunsplit

from retrieval.errors import QueryError, RetrievalError, SearchUnavailableError
from retrieval.fusion import RRF_K
from retrieval.port import Passage, Searcher
from retrieval.query import validate_limit, validate_query


def source_key(source: str) -> str:
    """The identity of a source for deduplication: URLs without scheme case, `www.` or a last `/`.

    >>> source_key("HTTPS://www.Example.org/a/") == source_key("https://example.org/a")
    True
    >>> source_key("notes/dates.md#leap-years")
    'notes/dates.md#leap-years'
    """
    parts = urlsplit(source.strip())
    if parts.scheme.lower() not in {"http", "https"}:
        return source.strip()
    host = parts.netloc.lower().removeprefix("www.")
    return urlunsplit(("https", host, parts.path.rstrip("/"), parts.query, ""))


def merge_rankings(rankings: Sequence[Sequence[Passage]], limit: int) -> list[Passage]:
    """Merge ranked lists by reciprocal rank, keeping the first copy of each source.

    Scores of different backends are not comparable (BM25, cosine, a web rank), so ranks are.

    >>> a, b, c = (Passage(text=t, source=t) for t in "abc")
    >>> [p.source for p in merge_rankings([[a, b], [c, b]], 3)]
    ['b', 'a', 'c']
    """
    scores: dict[str, float] = {}
    first: dict[str, Passage] = {}
    for ranking in rankings:
        for rank, passage in enumerate(ranking, start=1):
            key = source_key(passage.source)
            scores[key] = scores.get(key, 0.0) + 1.0 / (RRF_K + rank)
            first.setdefault(key, passage)
    order = sorted(scores, key=lambda key: -scores[key])  # stable: ties keep first-seen order
    return [first[key] for key in order[:limit]]


class FallbackSearcher:
    """Ask each searcher in turn; the first that answers with passages wins.

    A backend that fails (`RetrievalError`) or finds nothing hands over to the next one. Only when
    every backend failed is `SearchUnavailableError` raised, naming each failure.
    """

    def __init__(self, searchers: Sequence[Searcher]) -> None:
        if not searchers:
            raise ValueError("FallbackSearcher needs at least one searcher")
        self._searchers = tuple(searchers)

    def search(self, query: str, limit: int = 5) -> list[Passage]:
        validate_query(query)
        validate_limit(limit)
        failures: list[str] = []
        for searcher in self._searchers:
            try:
                passages = searcher.search(query, limit)
            except QueryError:
                raise
            except RetrievalError as error:
                failures.append(f"{type(searcher).__name__}: {error}")
                continue
            if passages:
                return passages[:limit]
        if len(failures) == len(self._searchers):
            raise SearchUnavailableError("every searcher failed: " + "; ".join(failures))
        return []


class MergedSearcher:
    """Ask every searcher and merge their rankings, one passage per source.

    Failing backends are skipped as long as one answers; when all fail, `SearchUnavailableError`.
    Each backend is asked for `limit` passages, so none can crowd the others out by volume.
    """

    def __init__(self, searchers: Sequence[Searcher]) -> None:
        if not searchers:
            raise ValueError("MergedSearcher needs at least one searcher")
        self._searchers = tuple(searchers)

    def search(self, query: str, limit: int = 5) -> list[Passage]:
        validate_query(query)
        validate_limit(limit)
        rankings: list[list[Passage]] = []
        failures: list[str] = []
        for searcher in self._searchers:
            try:
                rankings.append(searcher.search(query, limit))
            except QueryError:
                raise
            except RetrievalError as error:
                failures.append(f"{type(searcher).__name__}: {error}")
        if not rankings:
            raise SearchUnavailableError("every searcher failed: " + "; ".join(failures))
        return merge_rankings(rankings, limit)
