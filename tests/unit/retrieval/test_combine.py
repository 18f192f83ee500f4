from collections.abc import Callable

import pytest

from retrieval.combine import FallbackSearcher, MergedSearcher, source_key
from retrieval.errors import QueryError, SearchUnavailableError
from retrieval.port import Passage
from retrieval.scripted import ScriptedSearcher, passages


def test_fallback_uses_the_first_searcher_that_answers() -> None:
    down = ScriptedSearcher(error=SearchUnavailableError("offline"))
    empty = ScriptedSearcher()
    local = ScriptedSearcher(passages("a.md#x", "b.md#y"))
    never = ScriptedSearcher(passages("c.md#z"))
    result = FallbackSearcher([down, empty, local, never]).search("q", 1)
    assert [p.source for p in result] == ["a.md#x"]
    assert (len(down.calls), len(empty.calls), len(local.calls), len(never.calls)) == (1, 1, 1, 0)


def test_fallback_raises_naming_every_failure_only_when_all_fail() -> None:
    chain = FallbackSearcher(
        [
            ScriptedSearcher(error=SearchUnavailableError("dns failed")),
            ScriptedSearcher(error=SearchUnavailableError("timed out")),
        ]
    )
    with pytest.raises(SearchUnavailableError, match=r"dns failed.*timed out"):
        chain.search("q")


def test_fallback_returns_nothing_when_a_backend_answered_empty() -> None:
    chain = FallbackSearcher(
        [ScriptedSearcher(error=SearchUnavailableError("down")), ScriptedSearcher()]
    )
    assert chain.search("q") == []


def test_a_query_error_is_not_hidden_behind_the_next_backend() -> None:
    second = ScriptedSearcher(passages("a"))
    chain = FallbackSearcher([ScriptedSearcher(error=QueryError("too long")), second])
    with pytest.raises(QueryError):
        chain.search("q")
    assert second.calls == []


@pytest.mark.parametrize("make", [FallbackSearcher, MergedSearcher])
def test_combined_searchers_check_their_input(make: Callable[..., object]) -> None:
    searcher = make([ScriptedSearcher(passages("a"))])
    with pytest.raises(QueryError):
        searcher.search("  ")  # type: ignore[attr-defined]
    with pytest.raises(QueryError):
        searcher.search("q", 0)  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="at least one"):
        make([])


def test_merge_deduplicates_by_source_and_interleaves_by_rank() -> None:
    web = ScriptedSearcher(
        [
            Passage("w1", "https://www.example.org/leap/", "W"),
            Passage("w2", "https://other.org/b", "W2"),
        ]
    )
    local = ScriptedSearcher(
        [Passage("l1", "notes/a.md#x", "L"), Passage("w1 again", "http://example.org/leap", "W")]
    )
    result = MergedSearcher([local, web]).search("q", 5)
    assert [p.text for p in result] == ["w1 again", "l1", "w2"]


def test_merge_tolerates_a_failing_backend_but_not_all() -> None:
    down = ScriptedSearcher(error=SearchUnavailableError("offline"))
    merged = MergedSearcher([down, ScriptedSearcher(passages("a", "b"))])
    assert [p.source for p in merged.search("q", 5)] == ["a", "b"]
    with pytest.raises(SearchUnavailableError, match="offline"):
        MergedSearcher([down]).search("q")


def test_source_key_keeps_file_anchors_apart() -> None:
    assert source_key("notes/a.md#x") != source_key("notes/a.md#y")
    assert source_key("https://a.org/p?q=1") != source_key("https://a.org/p?q=2")
