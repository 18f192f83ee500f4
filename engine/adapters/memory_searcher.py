"""A tiny in-memory searcher: the `Searcher` port over a list of passages, scored by word overlap.

A first-class double for tests and for engines built without a retrieval backend; the real
backends live in `retrieval/`.

>>> searcher = InMemorySearcher([Passage("A leap year has 366 days.", "calendar.md"),
...                              Passage("Cats purr when content.", "cats.md")])
>>> [p.source for p in searcher.search("days in a leap year")]
['calendar.md']
"""

from collections.abc import Sequence

from engine.domain.records import Passage
from retrieval.query import content_words


class InMemorySearcher:
    """Ranks passages by how many of the query's content words they contain."""

    def __init__(self, passages: Sequence[Passage] = ()) -> None:
        self._passages = list(passages)
        # Each passage's words, read once here rather than at every search (passages are frozen).
        self._words = [
            set(content_words(p.title + " " + p.text, limit=None)) for p in self._passages
        ]
        self.queries: list[str] = []

    def search(self, query: str, limit: int = 5) -> list[Passage]:
        self.queries.append(query)
        terms = set(content_words(query, limit=None))
        scored = []
        for order, (passage, words) in enumerate(zip(self._passages, self._words, strict=True)):
            overlap = len(terms & words)
            if overlap:
                scored.append((-overlap, order, passage))
        scored.sort(key=lambda item: (item[0], item[1]))
        return [
            Passage(p.text, p.source, p.title, score=float(-negative))
            for negative, _, p in scored[:limit]
        ]
