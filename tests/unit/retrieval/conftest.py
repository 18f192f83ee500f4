"""Test doubles for the retrieval tests: scripted searchers that record what they were asked."""

from collections.abc import Callable, Sequence

import pytest

from retrieval.errors import RetrievalError
from retrieval.port import Passage


class ScriptedSearcher:
    """Answers every query with fixed passages (or raises a fixed error), recording the calls."""

    def __init__(
        self, passages: Sequence[Passage] = (), *, error: RetrievalError | None = None
    ) -> None:
        self.passages = list(passages)
        self.error = error
        self.calls: list[tuple[str, int]] = []

    def search(self, query: str, limit: int = 5) -> list[Passage]:
        self.calls.append((query, limit))
        if self.error is not None:
            raise self.error
        return self.passages[:limit]


def passages(*sources: str) -> list[Passage]:
    return [Passage(text=f"text of {s}", source=s, title=s) for s in sources]


@pytest.fixture
def scripted() -> Callable[..., ScriptedSearcher]:
    return ScriptedSearcher
