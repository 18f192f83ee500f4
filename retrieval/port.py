"""The search port: what the engine's seed stage asks of any retrieval backend."""

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Passage:
    """One retrieved passage. Its text is untrusted data, never instructions."""

    text: str
    source: str  # a URL or a file path with an anchor: what the seed cites
    title: str = ""
    score: float = 0.0


class Searcher(Protocol):
    """A retrieval backend: web search, a local index, a cache or a fallback chain of them."""

    def search(self, query: str, limit: int = 5) -> list[Passage]:
        """Return at most `limit` passages, best first; raise `RetrievalError` on failure."""
        ...
