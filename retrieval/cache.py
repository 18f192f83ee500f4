"""A caching wrapper for any searcher: results kept in a SQLite file with a time to live.

The engine's store lives in an outer layer, so the cache keeps its own small table in a file under
the data directory. When the wrapped searcher fails, a stale entry (past its time to live but not
yet purged) is served rather than nothing: an old answer about arithmetic is still a good seed.
"""

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

from retrieval.errors import IndexStoreError, SearchUnavailableError
from retrieval.port import Passage, Searcher
from retrieval.query import validate_limit, validate_query

_SCHEMA = """
CREATE TABLE IF NOT EXISTS search_cache (
    namespace TEXT NOT NULL, query TEXT NOT NULL, query_limit INTEGER NOT NULL,
    created_at REAL NOT NULL, passages TEXT NOT NULL,
    PRIMARY KEY (namespace, query, query_limit)
);
"""


class CachedSearcher:
    """Serve repeated queries from a SQLite cache; fresh for `ttl_s`, kept for `keep_s`."""

    def __init__(
        self,
        inner: Searcher,
        path: Path,
        *,
        namespace: str = "web",
        ttl_s: float = 7 * 24 * 3600.0,
        keep_s: float = 30 * 24 * 3600.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if ttl_s <= 0 or keep_s < ttl_s:
            raise ValueError(f"need 0 < ttl_s <= keep_s, got ttl_s={ttl_s}, keep_s={keep_s}")
        self._inner = inner
        self._namespace = namespace
        self._ttl_s = ttl_s
        self._keep_s = keep_s
        self._clock = clock
        self._lock = threading.Lock()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(path, check_same_thread=False, timeout=10.0)
            with self._conn:
                self._conn.executescript(_SCHEMA)
        except (OSError, sqlite3.Error) as error:
            raise IndexStoreError(f"cannot open the search cache {path}: {error}") from error

    def search(self, query: str, limit: int = 5) -> list[Passage]:
        key = " ".join(validate_query(query).lower().split())
        validate_limit(limit)
        now = self._clock()
        cached = self._read(key, limit)
        if cached is not None and now - cached[0] < self._ttl_s:
            return cached[1]
        try:
            passages = self._inner.search(query, limit)
        except SearchUnavailableError:
            if cached is not None:
                return cached[1]
            raise
        self._write(key, limit, now, passages)
        return passages

    def _read(self, key: str, limit: int) -> tuple[float, list[Passage]] | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT created_at, passages FROM search_cache "
                "WHERE namespace = ? AND query = ? AND query_limit = ?",
                (self._namespace, key, limit),
            ).fetchone()
        if row is None:
            return None
        try:
            passages = [Passage(**item) for item in json.loads(row[1])]
        except (ValueError, TypeError):
            return None  # an entry written by another version: treat as a miss and overwrite it
        return float(row[0]), passages

    def _write(self, key: str, limit: int, now: float, passages: list[Passage]) -> None:
        payload = json.dumps(
            [
                {"text": p.text, "source": p.source, "title": p.title, "score": p.score}
                for p in passages
            ]
        )
        with self._lock, self._conn:
            self._conn.execute(
                "INSERT OR REPLACE INTO search_cache VALUES (?, ?, ?, ?, ?)",
                (self._namespace, key, limit, now, payload),
            )
            self._conn.execute(
                "DELETE FROM search_cache WHERE namespace = ? AND created_at < ?",
                (self._namespace, now - self._keep_s),
            )

    def close(self) -> None:
        with self._lock:
            self._conn.close()
