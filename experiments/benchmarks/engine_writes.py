"""Outcomes per second through the engine (`Engine.record_outcome`), this checkout beside another.

    python -m experiments.benchmarks.engine_writes [--before DIR] [--outcomes 4000]
        [--shapes one,many] [--threads 1] [--rounds 3] [--postgres URL] [--json results.json]

What `experiments.benchmarks.store` measures is the store alone; this is what a client waits
for: the store's commit, then the engine learning the outcome (reading the new outcomes, the
decision's evidence, the policies' update, a checkpoint every 1,000 outcomes as shipped). Each
measurement runs in a fresh process on a fresh store (a SQLite file, or with `--postgres` a
fresh schema, where outcomes that threads post at once share a commit: `group_commit`) holding
`--outcomes` decisions over the built-in templates and five kinds of query. Shapes:

- `one`: one user outcome per decision;
- `many`: four per decision, as `--outcomes` in all: a user, that user's correction, and two
  more users (each decision still counts once).

`--threads T` posts from T threads of the one process. With `--before DIR` (another checkout,
run with this virtual environment) the two alternate for `--rounds` rounds, and medians are
reported. The measuring code uses only what both checkouts have.
"""

import argparse
import importlib
import json
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

QUERIES = (
    "What is 12 + 30?",
    "What is the first letter of the word 'banana'?",
    "Which is larger, 9 or 4?",
    "Answer A, B or C: which is a fruit?",
    "Is the sentiment of 'I loved it' positive?",
)
# (source, replace) per outcome of one decision, for each shape
SHAPES = {
    "one": (("user", False),),
    "many": (("user:a", False), ("user:a", True), ("user:b", False), ("user:c", False)),
}


@contextmanager
def fresh_store(postgres: str | None) -> Iterator[Any]:
    from engine.adapters.store.sql import SqlStore  # noqa: PLC0415 - the measured checkout's

    if postgres is None:
        with (
            tempfile.TemporaryDirectory(prefix="thinkpath-writes-") as folder,
            SqlStore(f"sqlite:///{Path(folder) / 'store.sqlite3'}") as store,
        ):
            yield store
        return
    from engine.adapters.store.sandbox import temporary_schema  # noqa: PLC0415

    with temporary_schema(postgres, prefix="thinkpath_writes") as url, SqlStore(url) as store:
        yield store


def measure(outcomes: int, shape: str, threads: int, postgres: str | None) -> dict[str, Any]:
    """One measurement on the running checkout's code: outcomes per second through the engine."""
    # Imported here: the parent process measuring `--before` never imports the engine itself.
    from engine.domain.config import EngineConfig  # noqa: PLC0415
    from engine.domain.records import NO_TOOL, DecisionRecord  # noqa: PLC0415
    from experiments.benchmarks.startup import NAMESPACE, build  # noqa: PLC0415
    from templates import load_templates  # noqa: PLC0415

    plan = SHAPES[shape]
    count = outcomes // len(plan)
    arms = [template.id for template in load_templates()]
    with fresh_store(postgres) as store:
        fields = _fields_per_query(store)
        store.save_decisions(
            [
                DecisionRecord(
                    decision_id=f"d{index}",
                    namespace=NAMESPACE,
                    created_at=datetime(2026, 12, 1, tzinfo=UTC),
                    query=QUERIES[index % len(QUERIES)],
                    **fields[index % len(QUERIES)],
                    choices={"path": arms[index % len(arms)], "tool": NO_TOOL},
                    propensities={"path": 1.0 / len(arms), "tool": 1.0},
                )
                for index in range(count)
            ]
        )
        # a checkpoint every 1,000 outcomes, as shipped
        engine, _ = build(store, EngineConfig().checkpoint_every)

        def post(first: int) -> None:
            for index in range(first, count, threads):
                for number, (source, replace) in enumerate(plan):
                    reward = float((index + number) % 2)  # a correction changes the score
                    engine.record_outcome(f"d{index}", source, reward, replace=replace)

        workers = [threading.Thread(target=post, args=(t,)) for t in range(threads)]
        started = time.perf_counter()
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        seconds = time.perf_counter() - started
        stored = len(store.outcomes_since(NAMESPACE, 0, count * len(plan) + 1))
        decisions = sum(row.outcomes for row in engine.arms() if row.role == "path")
    if stored != count * len(plan) or decisions != count:
        raise SystemExit(f"lost work: {stored} outcomes stored, {decisions} decisions learned")
    return {"per_second": round(stored / seconds), "outcomes": stored}


def _fields_per_query(store: Any) -> list[dict[str, Any]]:
    """Each query's kind (this checkout), or its regex-family context (a checkout from before
    kinds of query, such as the last wave's main), as a decision record's fields."""
    try:
        from experiments.benchmarks.startup import add_kinds  # noqa: PLC0415
    except ImportError:
        # only in a checkout from before kinds of query (imported by name: this one has none)
        features = importlib.import_module("engine.domain.features")
        return [{"context": tuple(map(float, features.query_features(q)))} for q in QUERIES]
    return [{"context": None, "kind": kind} for kind in add_kinds(store, QUERIES)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="another checkout to measure alongside")
    parser.add_argument("--outcomes", type=int, default=4_000, help="per measurement")
    parser.add_argument("--shapes", default="one,many", help=f"of {sorted(SHAPES)}")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--postgres", help="a PostgreSQL URL (a fresh schema); else SQLite")
    parser.add_argument("--json", type=Path, help="write the results here as JSON")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    shapes = args.shapes.split(",")
    if not set(shapes) <= set(SHAPES) or args.outcomes < 4 or args.threads < 1:
        parser.error(f"--shapes of {sorted(SHAPES)}, --outcomes >= 4, --threads >= 1")
    if args.measure:  # one measurement, in the process `run_on` started
        print(json.dumps(measure(args.outcomes, shapes[0], args.threads, args.postgres)))
        return
    from experiments.benchmarks.checkouts import HERE, run_on  # noqa: PLC0415

    checkouts = {"after": HERE} | ({"before": args.before.resolve()} if args.before else {})
    runs: dict[str, dict[str, list[int]]] = {n: {s: [] for s in shapes} for n in checkouts}
    for _ in range(args.rounds):
        for shape in shapes:
            for name, checkout in sorted(checkouts.items(), reverse=True):  # before, then after
                options = [f"--outcomes={args.outcomes}", f"--shapes={shape}", "--measure"]
                options += [f"--threads={args.threads}"]
                options += [f"--postgres={args.postgres}"] if args.postgres else []
                result = run_on(checkout, __file__, options)
                runs[name][shape].append(result["per_second"])
                print(name, shape, result, file=sys.stderr, flush=True)
    results = {
        "store": "postgresql" if args.postgres else "sqlite",
        "threads": args.threads,
        **{
            name: {
                shape: {"median_per_second": statistics.median(rates), "runs": rates}
                for shape, rates in by_shape.items()
            }
            for name, by_shape in runs.items()
        },
    }
    print(json.dumps(results, indent=2))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
