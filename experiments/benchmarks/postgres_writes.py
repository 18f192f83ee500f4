"""Durable outcomes per second into PostgreSQL from one process: this checkout beside another.

    python -m experiments.benchmarks.postgres_writes [--before DIR] [--outcomes 2000]
        [--threads 1,16] [--rounds 3] [--postgres URL] [--json results.json]

Each measurement runs in a fresh Python process on a fresh schema: it saves `--outcomes`
decisions, then records one outcome each through `SqlStore.record_outcome` (one call per outcome,
each acknowledged only once committed: `synchronous_commit=on`), from T threads of that one
process, for each T in `--threads`. With `--before DIR` (another checkout, e.g. the commit before
a change, run with this virtual environment) the two are measured alternately, `--rounds`
times, and medians are reported: before and after in one run, under the same machine load.
The measuring code uses only the store's public methods, so it runs on either checkout.
"""

import argparse
import json
import os
import statistics
from pathlib import Path
from typing import Any

from experiments.benchmarks.checkouts import run_code_on

DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"

MEASURE = """
import json, sys, threading, time
from datetime import UTC, datetime
from engine.adapters.store.sandbox import temporary_schema
from engine.adapters.store.sql import SqlStore
from engine.domain.records import DecisionRecord, OutcomeRecord

url, count, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
paths = ("first_principles", "work_backwards", "analogy", "systematic")
with temporary_schema(url, prefix="thinkpath_writes") as schema_url:
    with SqlStore(schema_url) as store:
        store.save_decisions([
            DecisionRecord(
                decision_id=f"d{i}", namespace="bench", created_at=datetime.now(UTC),
                query="q", context=(1.0, 0.0), choices={"path": paths[i % 4], "tool": "none"},
                propensities={"path": 0.25, "tool": 1.0},
            )
            for i in range(count)
        ])
        store.record_outcome(OutcomeRecord("d0", "checker", 1.0))  # the namespace's first
        def work(first):
            for i in range(first, count, threads):
                store.record_outcome(OutcomeRecord(f"d{i}", "checker", float(i % 2)))
        workers = [threading.Thread(target=work, args=(1 + t,)) for t in range(threads)]
        started = time.perf_counter()
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        seconds = time.perf_counter() - started
        assert len(store.outcomes_since("bench", 0, count + 1)) == count
print(json.dumps({"per_second": round((count - 1) / seconds)}))
"""


def measure_once(source: Path, url: str, count: int, threads: int) -> int:
    """Outcomes per second, measured in a fresh process running `source`'s code."""
    per_second: int = run_code_on(source, MEASURE, [url, str(count), str(threads)])["per_second"]
    return per_second


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="another checkout to measure alongside")
    parser.add_argument("--outcomes", type=int, default=2_000)
    parser.add_argument("--threads", default="1,16", help="comma-separated thread counts")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--postgres", default=os.environ.get("THINKPATH_TEST_POSTGRES_URL", DEFAULT_POSTGRES)
    )
    parser.add_argument("--json", type=Path, help="write the results here as JSON")
    args = parser.parse_args()
    sources = {"after": Path.cwd()} | ({"before": args.before} if args.before else {})
    threads = [int(value) for value in args.threads.split(",")]
    rates: dict[str, dict[int, list[int]]] = {name: {t: [] for t in threads} for name in sources}
    for _ in range(args.rounds):
        for count in threads:
            for name, source in sorted(sources.items(), reverse=True):  # before, then after
                rates[name][count].append(measure_once(source, args.postgres, args.outcomes, count))
    results: dict[str, Any] = {
        name: {
            f"threads_{count}": {"median_per_second": statistics.median(values), "runs": values}
            for count, values in by_threads.items()
        }
        for name, by_threads in rates.items()
    }
    print(json.dumps(results, indent=2))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
