"""A local hybrid index over folders of documents: SQLite FTS5 (BM25) plus embedding vectors.

One SQLite file holds the passages, their FTS5 index and their vectors (float32 blobs), so the
index is one file under the data directory. Vectors are searched in memory with numpy (10,000 x 384
is ~15 MB and a few ms per query); the matrix is reloaded only after the passages changed.

The index records which embedding model made its vectors. A different model re-embeds every
passage (or raises `EmbeddingMismatchError` when asked to), so two vector spaces never mix. With
no embedding model the index keeps working on keywords alone and leaves stored vectors alone.
"""

import hashlib
import sqlite3
import threading
from collections.abc import Iterator
from concurrent import futures
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from tqdm import tqdm  # type: ignore[import-untyped]  # tqdm ships no type hints

from retrieval.documents import MAX_FILE_BYTES, Document, SkippedFile, document_files, read_document
from retrieval.embedding import Embedder
from retrieval.errors import EmbeddingError, EmbeddingMismatchError, IndexStoreError
from retrieval.fusion import DEFAULT_FUSION, Fusion, top
from retrieval.port import Passage
from retrieval.query import fts_match_expression, validate_limit, validate_query
from retrieval.vectors import cosines, load_matrix, nearest

SCHEMA_VERSION = "1"
SearchMode = Literal["hybrid", "keyword", "vector"]
# Passages embedded per transaction: large enough that length-sorting inside the embedder pays
# and every core gets batches, small enough that an interrupted run keeps most of its work.
EMBED_BATCH = 512
# A progress bar (on a terminal) when at least this many passages wait to be embedded.
PROGRESS_MIN_PASSAGES = 500

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    key TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL, sha256 TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS passages (
    id INTEGER PRIMARY KEY, file_key TEXT NOT NULL, source TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL, text TEXT NOT NULL, vector BLOB
);
CREATE INDEX IF NOT EXISTS passages_file ON passages (file_key);
CREATE VIRTUAL TABLE IF NOT EXISTS passages_fts
    USING fts5 (title, text, tokenize = 'porter unicode61 remove_diacritics 2');
"""


@dataclass(frozen=True)
class IndexReport:
    """What one `index_folder` run did; `skipped` says which files were left out and why."""

    added: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0
    skipped: tuple[SkippedFile, ...] = ()


class LocalIndex:
    """Hybrid keyword + vector search over indexed folders; implements the `Searcher` port."""

    def __init__(
        self,
        path: Path,
        *,
        embedder: Embedder | None,
        fusion: Fusion = DEFAULT_FUSION,
        on_model_change: Literal["reembed", "error"] = "reembed",
        candidates: int = 50,
        progress: bool | None = None,
        keyword_thread: bool = True,
    ) -> None:
        """`progress`: True always shows a bar while embedding, False never, None (default) on a
        terminal when at least `PROGRESS_MIN_PASSAGES` passages wait to be embedded.
        `keyword_thread=False` runs a hybrid search's two halves one after the other (for one
        core, where a second thread only adds a hand-over)."""
        if not isinstance(fusion, Fusion):
            raise TypeError(f"fusion must be a retrieval.fusion.Fusion, got {fusion!r}")
        self._path = path
        self._embedder = embedder
        self._fusion = fusion
        self._candidates = candidates
        self._progress = progress
        self._keyword_thread_on = keyword_thread
        self._keyword_executor: futures.ThreadPoolExecutor | None = None
        self._lock = threading.RLock()
        self._ids: NDArray[np.int64] | None = None
        self._matrix: NDArray[np.float32] | None = None
        self._conn = self._open(path)
        try:
            self._check_model(on_model_change)
        except BaseException:
            self._conn.close()
            raise

    # -- opening ------------------------------------------------------------------------------

    @staticmethod
    def _open(path: Path) -> sqlite3.Connection:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(path, check_same_thread=False, timeout=10.0)
        except (OSError, sqlite3.Error) as error:
            raise IndexStoreError(f"cannot open the index {path}: {error}") from error
        try:
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
            if tables and "meta" not in tables:
                raise IndexStoreError(f"{path} is a SQLite file but not a ThinkPath index")
            conn.execute("PRAGMA journal_mode = WAL")
            # With WAL, NORMAL syncs at checkpoints rather than at every commit (one per file
            # indexed): a power cut may lose the last files, never corrupt the index, and the
            # next run re-reads whatever is missing.
            conn.execute("PRAGMA synchronous = NORMAL")
            with conn:
                conn.executescript(_SCHEMA)
                conn.execute(
                    "INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (SCHEMA_VERSION,)
                )
            version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            if version[0] != SCHEMA_VERSION:
                raise IndexStoreError(f"{path} has index schema {version[0]}, not {SCHEMA_VERSION}")
        except sqlite3.Error as error:
            conn.close()
            raise IndexStoreError(f"unusable index {path}: {error}") from error
        except IndexStoreError:
            conn.close()
            raise
        return conn

    def _check_model(self, on_model_change: str) -> None:
        """Re-embed (or refuse) when the stored vectors come from another model."""
        if self._embedder is None:
            return
        wanted = self._embedder.model_id
        row = self._conn.execute("SELECT value FROM meta WHERE key = 'embedding_model'").fetchone()
        stored = row[0] if row else None
        if stored != wanted:
            has_vectors = self._conn.execute(
                "SELECT 1 FROM passages WHERE vector IS NOT NULL LIMIT 1"
            ).fetchone()
            if has_vectors and on_model_change == "error":
                raise EmbeddingMismatchError(
                    f"the index {self._path} holds vectors of {stored!r}, not of {wanted!r}; "
                    "re-embed it (on_model_change='reembed') or use the model it was built with"
                )
            with self._conn:
                self._conn.execute("UPDATE passages SET vector = NULL")
                self._conn.execute(
                    "INSERT OR REPLACE INTO meta VALUES ('embedding_model', ?)", (wanted,)
                )
        self._embed_missing()

    def close(self) -> None:
        with self._lock:
            if self._keyword_executor is not None:
                self._keyword_executor.shutdown()
            self._conn.close()

    def __enter__(self) -> "LocalIndex":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                with self._conn:
                    yield self._conn
            except sqlite3.Error as error:
                raise IndexStoreError(f"index {self._path}: {error}") from error

    # -- indexing -----------------------------------------------------------------------------

    def index_folder(self, folder: Path, *, label: str | None = None) -> IndexReport:
        """Bring the index up to date with `folder`: add new, re-read changed, drop deleted files.

        Unchanged files (same size and mtime, or same content hash) cost one `stat`. Sources are
        `<absolute path>#<anchor>`, or `<label>/<relative path>#<anchor>` when a label is given.
        """
        if not folder.is_dir():
            raise IndexStoreError(f"cannot index {folder}: not a folder")
        root = folder.resolve()
        prefix = f"{label}/" if label else f"{root}/"
        counts = {"added": 0, "updated": 0, "unchanged": 0}
        skipped: list[SkippedFile] = []
        seen: set[str] = set()
        for file in sorted(document_files(root)):
            key = prefix + file.relative_to(root).as_posix()
            seen.add(key)
            outcome = self._index_file(file, key)
            if isinstance(outcome, SkippedFile):
                skipped.append(outcome)
            else:
                counts[outcome] += 1
        removed = 0
        with self._transaction() as conn:
            stored = [row[0] for row in conn.execute("SELECT key FROM files")]
            for key in stored:
                if key.startswith(prefix) and key not in seen:
                    self._delete_file(conn, key)
                    removed += 1
        self._embed_missing()
        return IndexReport(removed=removed, skipped=tuple(skipped), **counts)

    def _index_file(self, file: Path, key: str) -> str | SkippedFile:
        """Index one file; return 'added', 'updated', 'unchanged' or why it was skipped."""
        with self._lock:  # one file at a time, so a concurrent search sees it whole or not at all
            return self._index_file_locked(file, key)

    def _index_file_locked(self, file: Path, key: str) -> str | SkippedFile:
        try:
            stat = file.stat()
            row = self._conn.execute(
                "SELECT mtime_ns, size, sha256 FROM files WHERE key = ?", (key,)
            ).fetchone()
            if row and (row[0], row[1]) == (stat.st_mtime_ns, stat.st_size):
                return "unchanged"
            if stat.st_size > MAX_FILE_BYTES:  # checked before hashing: never read a huge file
                with self._transaction() as conn:
                    self._delete_file(conn, key)
                return SkippedFile(file, f"too large ({stat.st_size} bytes > {MAX_FILE_BYTES})")
            digest = hashlib.sha256(file.read_bytes()).hexdigest()
        except OSError as error:
            return SkippedFile(file, f"unreadable: {error.strerror or error}")
        if row and row[2] == digest:
            with self._transaction() as conn:
                conn.execute(
                    "UPDATE files SET mtime_ns = ?, size = ? WHERE key = ?",
                    (stat.st_mtime_ns, stat.st_size, key),
                )
            return "unchanged"
        document = read_document(file)
        with self._transaction() as conn:
            self._delete_file(conn, key)
            if isinstance(document, SkippedFile):
                return document
            self._insert_document(conn, key, document)
            conn.execute(
                "INSERT INTO files VALUES (?, ?, ?, ?)",
                (key, stat.st_mtime_ns, stat.st_size, digest),
            )
        return "updated" if row else "added"

    def _insert_document(self, conn: sqlite3.Connection, key: str, document: Document) -> None:
        for chunk in document.chunks:
            title = document.title
            if chunk.title and chunk.title != document.title:
                title = f"{document.title} › {chunk.title}"
            cursor = conn.execute(
                "INSERT INTO passages (file_key, source, title, text) VALUES (?, ?, ?, ?)",
                (key, f"{key}#{chunk.anchor}", title, chunk.text),
            )
            conn.execute(
                "INSERT INTO passages_fts (rowid, title, text) VALUES (?, ?, ?)",
                (cursor.lastrowid, title, chunk.text),
            )
        self._ids = self._matrix = None

    def _delete_file(self, conn: sqlite3.Connection, key: str) -> None:
        conn.execute(
            "DELETE FROM passages_fts WHERE rowid IN (SELECT id FROM passages WHERE file_key = ?)",
            (key,),
        )
        conn.execute("DELETE FROM passages WHERE file_key = ?", (key,))
        conn.execute("DELETE FROM files WHERE key = ?", (key,))
        self._ids = self._matrix = None

    def _embed_missing(self) -> None:
        """Embed every passage that has no vector yet, in batches, one transaction per batch."""
        if self._embedder is None:
            return
        with self._lock:
            missing = self._conn.execute(
                "SELECT count(*) FROM passages WHERE vector IS NULL"
            ).fetchone()[0]
        if not missing:
            return
        # tqdm's disable=None means "only on a terminal"; small jobs never draw a bar.
        auto = None if missing >= PROGRESS_MIN_PASSAGES else True
        disable = {True: False, False: True, None: auto}[self._progress]
        with tqdm(total=missing, unit="passage", desc="embedding", disable=disable) as bar:
            while True:
                with self._lock:
                    rows = self._conn.execute(
                        "SELECT id, title, text FROM passages WHERE vector IS NULL "
                        "ORDER BY id LIMIT ?",
                        (EMBED_BATCH,),
                    ).fetchall()
                if not rows:
                    return
                vectors = self._embedder.embed([f"{title}: {text}" for _, title, text in rows])
                with self._transaction() as conn:
                    conn.executemany(
                        "UPDATE passages SET vector = ? WHERE id = ?",
                        [(v.tobytes(), row[0]) for v, row in zip(vectors, rows, strict=True)],
                    )
                self._ids = self._matrix = None
                bar.update(len(rows))

    # -- searching ----------------------------------------------------------------------------

    def search(self, query: str, limit: int = 5, *, mode: SearchMode = "hybrid") -> list[Passage]:
        """The `limit` best passages for `query`: hybrid, or keyword / vector alone.

        Hybrid without an embedding model is keyword search (the graceful fall back). Hybrid
        search runs its BM25 query on a second thread while this one embeds the query and scans
        the vectors: the two are independent until fusion, SQLite and onnxruntime both release
        the GIL, and on 100,000 passages each half costs about 7-10 ms of CPU.
        """
        text = validate_query(query)
        validate_limit(limit)
        if mode not in ("hybrid", "keyword", "vector"):
            raise ValueError(f"mode must be hybrid, keyword or vector, got {mode!r}")
        if mode == "vector" and self._embedder is None:
            raise EmbeddingError("vector search needs an embedding model; none is installed")
        pool = max(self._candidates, limit)
        with self._lock:
            if mode == "keyword" or self._embedder is None:
                return self._passages(top(self._keyword_scores(text, pool), limit))
            ids, matrix = self._vectors()  # loaded here: the other thread may then use SQLite
            if mode == "vector":
                scores = nearest(ids, self._cosines(text, matrix), pool)
                return self._passages(top(scores, limit))
            if self._keyword_thread_on:
                pending = self._keyword_thread().submit(self._keyword_scores, text, pool)
                try:
                    query_cosines = self._cosines(text, matrix)
                finally:
                    futures.wait([pending])  # never leave the lock while SQLite is in use
                keyword = pending.result()
            else:
                keyword = self._keyword_scores(text, pool)
                query_cosines = self._cosines(text, matrix)
            vector = nearest(ids, query_cosines, pool, also=keyword)
            scores = self._fusion.combine(keyword, vector) if vector else keyword
            return self._passages(top(scores, limit))

    def _keyword_thread(self) -> futures.ThreadPoolExecutor:
        if self._keyword_executor is None:
            self._keyword_executor = futures.ThreadPoolExecutor(1, "thinkpath-fts")
        return self._keyword_executor

    def _keyword_scores(self, text: str, pool: int) -> dict[int, float]:
        expression = fts_match_expression(text)
        if expression is None:
            return {}
        try:
            rows = self._conn.execute(
                "SELECT rowid, bm25(passages_fts, 2.0, 1.0) FROM passages_fts "
                "WHERE passages_fts MATCH ? ORDER BY bm25(passages_fts, 2.0, 1.0) LIMIT ?",
                (expression, pool),
            ).fetchall()
        except sqlite3.Error as error:
            raise IndexStoreError(f"keyword search failed on {self._path}: {error}") from error
        # SQLite's bm25() is negative (more negative = better); negate so higher is better.
        return {rowid: -score for rowid, score in rows}

    def _cosines(self, text: str, matrix: NDArray[np.float32]) -> NDArray[np.float32]:
        assert self._embedder is not None
        if not len(matrix):
            return np.zeros(0, dtype=np.float32)
        return cosines(matrix, self._embedder.embed([text])[0])

    def _vectors(self) -> tuple[NDArray[np.int64], NDArray[np.float32]]:
        if self._ids is None or self._matrix is None:
            assert self._embedder is not None
            self._ids, self._matrix = load_matrix(self._conn, self._embedder.dimension, self._path)
        return self._ids, self._matrix

    def _passages(self, ranked: list[tuple[int, float]]) -> list[Passage]:
        if not ranked:
            return []
        marks = ",".join("?" * len(ranked))
        rows = self._conn.execute(
            f"SELECT id, source, title, text FROM passages WHERE id IN ({marks})",
            [passage_id for passage_id, _ in ranked],
        ).fetchall()
        by_id = {row[0]: row for row in rows}
        return [
            Passage(text=by_id[i][3], source=by_id[i][1], title=by_id[i][2], score=score)
            for i, score in ranked
            if i in by_id
        ]

    def passage_count(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT count(*) FROM passages").fetchone()[0])
