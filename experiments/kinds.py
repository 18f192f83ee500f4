"""How well discovered kinds of query match the true task families, and how long finding one takes.

    python -m experiments.kinds [--thresholds 0.3,0.4,0.5] [--orders 3] [--per-family 20]
        [--embedder shipped|hashing] [--json results.json]

The queries are the development BIG-bench families (`experiments.bigbench`, 18 families) and the
generated families (`experiments.tasks`, 7), each in `--orders` shuffled orders. Each order runs
through a fresh `KindBook` on an in-memory store with the shipped embedding model, exactly as
the engine assigns kinds online (nearest anchor at or above the threshold, else a new kind). Per
threshold it reports, averaged over orders:

- the adjusted Rand index (ARI, Hubert & Arabie 1985) of the discovered kinds against the true
  family, and the number of kinds found;
- the median and p90 milliseconds to find a query's kind (embedding included), side by side
  with the regex families (`experiments.regex_families`) as the reference;
- the ARI of the regex families, the kinds the engine used before.

These are development families: the threshold is chosen on them (docs/benchmarks.md, "Kinds of
query"); the public families the issue was tried on stay held out. `--embedder hashing` runs
the hashing fall-back (384 wide) instead of the shipped model, to state its own threshold.
"""

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.metrics import adjusted_rand_score  # type: ignore[import-untyped]

from engine.adapters.store.memory import InMemoryStore
from engine.compose import build_embedder
from engine.domain.kinds import DEFAULT_MAX_KINDS, FALLBACK_DIMENSION
from engine.orchestration.kind_book import KindBook, KindSettings
from engine.settings import load_settings
from experiments.bigbench.suite import bigbench_suite
from experiments.regex_families import family
from experiments.tasks import Task, generate_suite
from retrieval.embedding import HashingEmbedder

__all__ = ["kind_study", "main"]


def study_tasks(per_family: int) -> list[Task]:
    """The development BIG-bench families and the generated ones, `per_family` tasks each."""
    generated = generate_suite(seed=0, per_family=per_family).tasks
    return [*bigbench_suite(per_family=per_family).tasks, *generated]


def assign(tasks: list[Task], threshold: float, embedder: Any) -> tuple[list[str], list[float]]:
    """Each task's discovered kind, online in the given order, and the seconds each took."""
    book = KindBook(
        log=InMemoryStore(),
        namespace="study",
        embedder=embedder,
        dimension=embedder.dimension,
        settings=KindSettings(threshold, DEFAULT_MAX_KINDS),
    )
    kinds, seconds = [], []
    for task in tasks:
        started = time.perf_counter()
        kinds.append(book.find(task.query).kind.kind_id)
        seconds.append(time.perf_counter() - started)
    return kinds, seconds


def kind_study(
    thresholds: list[float], orders: int, per_family: int, *, embedder_name: str = "shipped"
) -> dict[str, Any]:
    """ARI, kinds found and time to find a kind per threshold (see the module)."""
    embedder = (
        HashingEmbedder(FALLBACK_DIMENSION)
        if embedder_name == "hashing"
        else build_embedder(load_settings(store_url="memory"))
    )
    embedder.embed(["warm up"])  # the model loads on its first call: not part of any figure
    tasks = study_tasks(per_family)
    truth_names = sorted({task.family for task in tasks})
    result: dict[str, Any] = {
        "embedder": embedder.model_id,
        "tasks": len(tasks),
        "families": len(truth_names),
        "orders": orders,
        "thresholds": {},
    }
    regex_ms: list[float] = []
    for order in range(orders):
        shuffled = [tasks[i] for i in np.random.default_rng(order).permutation(len(tasks))]
        for task in shuffled:
            started = time.perf_counter()
            family(task.query)
            regex_ms.append(1000 * (time.perf_counter() - started))
    truth = [task.family for task in tasks]
    result["regex_ari"] = round(adjusted_rand_score(truth, [family(t.query) for t in tasks]), 3)
    result["regex_ms_median"] = round(statistics.median(regex_ms), 3)
    for threshold in thresholds:
        aris, counts, millis = [], [], []
        for order in range(orders):
            shuffled = [tasks[i] for i in np.random.default_rng(order).permutation(len(tasks))]
            kinds, seconds = assign(shuffled, threshold, embedder)
            aris.append(adjusted_rand_score([t.family for t in shuffled], kinds))
            counts.append(len(set(kinds)))
            millis += [1000 * s for s in seconds]
        result["thresholds"][str(threshold)] = {
            "ari_mean": round(float(np.mean(aris)), 3),
            "ari_by_order": [round(a, 3) for a in aris],
            "kinds_mean": round(float(np.mean(counts)), 1),
            "find_ms_median": round(statistics.median(millis), 2),
            "find_ms_p90": round(float(np.percentile(millis, 90)), 2),
        }
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--thresholds", default="0.3,0.35,0.4,0.45,0.5,0.6")
    parser.add_argument("--orders", type=int, default=3)
    parser.add_argument("--per-family", type=int, default=20)
    parser.add_argument("--embedder", choices=("shipped", "hashing"), default="shipped")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    try:
        thresholds = [float(x) for x in args.thresholds.split(",")]
    except ValueError:
        parser.error("--thresholds must be numbers separated by commas")
    if args.orders < 1 or args.per_family < 1 or not all(0 < t <= 1 for t in thresholds):
        parser.error("--orders and --per-family must be at least 1, thresholds in (0, 1]")
    found = kind_study(thresholds, args.orders, args.per_family, embedder_name=args.embedder)
    print(json.dumps(found, indent=1))
    if args.json:
        args.json.write_text(json.dumps(found, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
