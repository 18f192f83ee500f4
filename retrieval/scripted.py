"""A scripted searcher: a first-class test double that answers from a fixed list of passages.

Used by the tests here and by the engine's tests to drive the seed stage without an index.
"""

from collections.abc import Sequence

from retrieval.errors import RetrievalError
from retrieval.port import Passage
from retrieval.query import validate_limit, validate_query


class ScriptedSearcher:
    """Answers every query with the same passages (or raises `error`), recording each call.

    >>> searcher = ScriptedSearcher([Passage("366 days", "notes/leap.md#rule")])
    >>> [p.source for p in searcher.search("leap year")], searcher.calls
    (['notes/leap.md#rule'], [('leap year', 5)])
    """

    def __init__(
        self, passages: Sequence[Passage] = (), *, error: RetrievalError | None = None
    ) -> None:
        self.passages = list(passages)
        self.error = error
        self.calls: list[tuple[str, int]] = []

    def search(self, query: str, limit: int = 5) -> list[Passage]:
        validate_query(query)
        validate_limit(limit)
        self.calls.append((query, limit))
        if self.error is not None:
            raise self.error
        return self.passages[:limit]


def passages(*sources: str) -> list[Passage]:
    """One passage per source, with a text that names it (for quick fixtures)."""
    return [Passage(text=f"text of {source}", source=source, title=source) for source in sources]
