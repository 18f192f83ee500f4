from pathlib import Path

import pytest

from retrieval.cache import CachedSearcher
from retrieval.errors import IndexStoreError, SearchUnavailableError
from retrieval.scripted import ScriptedSearcher, passages


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def test_repeated_query_within_ttl_is_served_from_the_file(tmp_path: Path) -> None:
    inner = ScriptedSearcher(passages("https://a.org", "https://b.org"))
    clock = Clock()
    cache = CachedSearcher(inner, tmp_path / "c.sqlite3", ttl_s=100, clock=clock)
    first = cache.search("Leap  Year", 2)
    clock.now += 50
    again = CachedSearcher(inner, tmp_path / "c.sqlite3", ttl_s=100, clock=clock)
    assert again.search("leap year", 2) == first
    assert len(inner.calls) == 1


def test_expired_entry_is_refreshed(tmp_path: Path) -> None:
    inner = ScriptedSearcher(passages("https://a.org"))
    clock = Clock()
    cache = CachedSearcher(inner, tmp_path / "c.sqlite3", ttl_s=100, clock=clock)
    cache.search("q")
    clock.now += 101
    inner.passages = passages("https://new.org")
    assert [p.source for p in cache.search("q")] == ["https://new.org"]
    assert len(inner.calls) == 2


def test_stale_entry_is_served_when_the_backend_is_down(tmp_path: Path) -> None:
    inner = ScriptedSearcher(passages("https://a.org"))
    clock = Clock()
    cache = CachedSearcher(inner, tmp_path / "c.sqlite3", ttl_s=100, keep_s=1000, clock=clock)
    cache.search("q")
    clock.now += 500
    inner.error = SearchUnavailableError("offline")
    assert [p.source for p in cache.search("q")] == ["https://a.org"]
    with pytest.raises(SearchUnavailableError):
        cache.search("never asked before")


def test_limits_and_namespaces_are_separate_entries(tmp_path: Path) -> None:
    inner = ScriptedSearcher(passages("a", "b", "c"))
    cache = CachedSearcher(inner, tmp_path / "c.sqlite3", namespace="web")
    other = CachedSearcher(inner, tmp_path / "c.sqlite3", namespace="other")
    assert len(cache.search("q", 1)) == 1
    assert len(cache.search("q", 3)) == 3
    other.search("q", 3)
    assert len(inner.calls) == 3


def test_bad_settings_and_unusable_file_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="ttl_s"):
        CachedSearcher(ScriptedSearcher(), tmp_path / "c.sqlite3", ttl_s=0)
    (tmp_path / "junk.sqlite3").write_bytes(b"not sqlite" * 200)
    with pytest.raises(IndexStoreError, match="junk"):
        CachedSearcher(ScriptedSearcher(), tmp_path / "junk.sqlite3")
