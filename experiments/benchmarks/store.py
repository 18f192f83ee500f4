"""Benchmark the store: outcomes per second, one process and four at once, beside raw sqlite3.

    .venv/bin/python -m experiments.benchmarks.store [--outcomes 4000] [--processes 4]
        [--durability normal|full] [--postgres URL] [--before DIR] [--json results.json]

For each case the same outcome rows are also written with bare sqlite3 in the same run (same
file settings: WAL, the same `synchronous`, one transaction per outcome, or one per batch for the
bulk path), so the store's overhead is read against the machine's own speed, not against a
number measured elsewhere. Also measured: `save_decision` latency (median and 90th percentile),
which is what the store adds to a decision. With `--before DIR` (another checkout, run with this
virtual environment) each round runs the whole measurement on that checkout's code and on this
one's, in fresh processes, the first to go alternating (`experiments.benchmarks.checkouts`), and
the medians of the rounds' durable outcomes per second are reported side by side.
"""

import argparse
import json
import multiprocessing
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.adapters.store.connection import Durability
from engine.adapters.store.sql import SqlStore
from engine.domain.records import DecisionRecord, OutcomeRecord

BATCH = 5_000
PATHS = ("first_principles", "work_backwards", "analogy", "systematic")


@dataclass(frozen=True)
class Case:
    """One measured case: what was run, and its rate beside raw sqlite3."""

    name: str
    outcomes: int
    seconds: float
    raw_seconds: float | None

    @property
    def rate(self) -> float:
        """Outcomes per second through the store."""
        return self.outcomes / self.seconds

    @property
    def raw_rate(self) -> float | None:
        """Outcomes per second with bare sqlite3, when measured."""
        return None if self.raw_seconds is None else self.outcomes / self.raw_seconds


def decisions_of(prefix: str, count: int) -> list[DecisionRecord]:
    """`count` decisions whose ids start with `prefix`."""
    now = datetime.now(UTC)
    return [
        DecisionRecord(
            decision_id=f"{prefix}-{index}",
            namespace="bench",
            created_at=now,
            query=f"question {index}",
            context=(float(index % 7), 1.0),
            choices={"path": PATHS[index % 4], "tool": "calculator"},
            propensities={"path": 0.25, "tool": 1.0},
            payload={"candidates": [{"arm": p, "score": 0.5} for p in PATHS], "cost": 3},
        )
        for index in range(count)
    ]


def outcomes_of(decisions: list[DecisionRecord]) -> list[OutcomeRecord]:
    """One checker outcome per decision."""
    return [
        OutcomeRecord(d.decision_id, "checker", (index % 5) / 4)
        for index, d in enumerate(decisions)
    ]


def raw_table(path: Path, durability: Durability) -> sqlite3.Connection:
    """A bare sqlite3 connection to an outcomes table shaped like the store's."""
    connection = sqlite3.connect(path, isolation_level=None, timeout=60)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute(f"PRAGMA synchronous={durability.upper()}")
    connection.execute(
        "CREATE TABLE IF NOT EXISTS outcomes (namespace TEXT, seq INTEGER, decision_id TEXT, "
        "source TEXT, reward REAL, weight REAL, created_at TEXT, PRIMARY KEY (namespace, seq), "
        "UNIQUE (decision_id, source))"
    )
    return connection


def raw_rows(prefix: str, outcomes: list[OutcomeRecord]) -> list[tuple[Any, ...]]:
    """The outcome rows as bare sqlite3 writes them."""
    moment = datetime.now(UTC).isoformat()
    return [
        (prefix, seq, o.decision_id, o.source, o.reward, o.weight, moment)
        for seq, o in enumerate(outcomes, start=1)
    ]


INSERT = "INSERT INTO outcomes VALUES (?, ?, ?, ?, ?, ?, ?)"


def raw_one_by_one(path: Path, durability: Durability, rows: list[tuple[Any, ...]]) -> float:
    """Seconds to insert `rows` with bare sqlite3, one transaction each."""
    connection = raw_table(path, durability)
    start = time.perf_counter()
    for row in rows:
        connection.execute("BEGIN IMMEDIATE")
        connection.execute(INSERT, row)
        connection.execute("COMMIT")
    seconds = time.perf_counter() - start
    connection.close()
    return seconds


def raw_batched(path: Path, durability: Durability, rows: list[tuple[Any, ...]]) -> float:
    """Seconds to insert `rows` with bare sqlite3, one transaction per `BATCH` rows."""
    connection = raw_table(path, durability)
    start = time.perf_counter()
    for first in range(0, len(rows), BATCH):
        connection.execute("BEGIN IMMEDIATE")
        connection.executemany(INSERT, rows[first : first + BATCH])
        connection.execute("COMMIT")
    seconds = time.perf_counter() - start
    connection.close()
    return seconds


def store_one_by_one(url: str, durability: Durability, outcomes: list[OutcomeRecord]) -> float:
    """Seconds to record `outcomes` through the store, one call each."""
    with SqlStore(url, durability=durability) as store:
        store.record_outcomes([])  # open this thread's connection outside the timing, as raw does
        start = time.perf_counter()
        for outcome in outcomes:
            store.record_outcome(outcome)
        return time.perf_counter() - start


def store_batched(url: str, durability: Durability, outcomes: list[OutcomeRecord]) -> float:
    """Seconds to record `outcomes` through the store's batch API."""
    with SqlStore(url, durability=durability) as store:
        store.record_outcomes([])  # open this thread's connection outside the timing, as raw does
        start = time.perf_counter()
        for first in range(0, len(outcomes), BATCH):
            store.record_outcomes(outcomes[first : first + BATCH])
        return time.perf_counter() - start


def _worker(
    job: Callable[..., float], args: tuple[Any, ...], barrier: Any, results: Any, key: int
) -> None:
    barrier.wait()
    start = time.monotonic()
    job(*args)
    results[key] = (start, time.monotonic())


def in_parallel(jobs: list[tuple[Callable[..., float], tuple[Any, ...]]]) -> float:
    """Wall seconds for `jobs` run at once in forked processes, from a common start."""
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(len(jobs))
    with context.Manager() as manager:
        results = manager.dict()
        processes = [
            context.Process(target=_worker, args=(job, args, barrier, results, n))
            for n, (job, args) in enumerate(jobs)
        ]
        for process in processes:
            process.start()
        for process in processes:
            process.join()
            if process.exitcode != 0:
                raise RuntimeError(f"a benchmark process failed with {process.exitcode}")
        spans: list[tuple[float, float]] = list(results.values())
    return max(end for _, end in spans) - min(start for start, _ in spans)


def decision_latency(url: str, durability: Durability, count: int) -> tuple[float, float]:
    """Median and 90th-percentile milliseconds of `save_decision`."""
    samples = []
    with SqlStore(url, durability=durability) as store:
        for decision in decisions_of("latency", count):
            start = time.perf_counter()
            store.save_decision(decision)
            samples.append((time.perf_counter() - start) * 1e3)
    return statistics.median(samples), statistics.quantiles(samples, n=10)[-1]


def fresh_store(
    folder: Path, name: str, durability: Durability, prefixes: list[str], count: int
) -> str:
    """A new store holding `count` decisions per prefix, its WAL checkpointed: a clean start."""
    path = folder / f"{name}.sqlite3"
    url = f"sqlite:///{path}"
    with SqlStore(url, durability=durability) as store:
        for prefix in prefixes:
            store.save_decisions(decisions_of(prefix, count))
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return url


def measure(
    folder: Path, durability: Durability, count: int, processes: int, repeat: int
) -> list[Case]:
    """One round of every case, each on fresh files (store and raw alike)."""
    tag = f"r{repeat}"
    url = fresh_store(folder, f"one{tag}", durability, ["one"], count)
    one = outcomes_of(decisions_of("one", count))
    cases = [
        Case(
            "one process, one outcome per call",
            count,
            store_one_by_one(url, durability, one),
            raw_one_by_one(folder / f"raw_one{tag}.sqlite3", durability, raw_rows("one", one)),
        )
    ]
    prefixes = [f"p{n}" for n in range(processes)]
    url = fresh_store(folder, f"many{tag}", durability, prefixes, count)
    many = [outcomes_of(decisions_of(prefix, count)) for prefix in prefixes]
    store_seconds = in_parallel([(store_one_by_one, (url, durability, o)) for o in many])
    raw_path = folder / f"raw_many{tag}.sqlite3"
    raw_table(raw_path, durability).close()
    raw_seconds = in_parallel(
        [
            (raw_one_by_one, (raw_path, durability, raw_rows(p, o)))
            for p, o in zip(prefixes, many, strict=True)
        ]
    )
    cases.append(
        Case(
            f"{processes} processes at once (all outcomes)",
            count * processes,
            store_seconds,
            raw_seconds,
        )
    )
    url = fresh_store(folder, f"batch{tag}", durability, ["batch"], count)
    bulk = outcomes_of(decisions_of("batch", count))
    raw_path = folder / f"raw_batch{tag}.sqlite3"
    cases.append(
        Case(
            f"batch API, up to {BATCH} per call",
            count,
            store_batched(url, durability, bulk),
            raw_batched(raw_path, durability, raw_rows("batch", bulk)),
        )
    )
    return cases


def run(
    count: int, processes: int, durability: Durability, folder: Path, repeats: int
) -> dict[str, Any]:
    """Every case `repeats` times on fresh files under `folder`; medians are reported."""
    url = fresh_store(folder, "latency", durability, [], 0)
    median_ms, p90_ms = decision_latency(url, durability, min(count, 2_000))
    rounds = [measure(folder, durability, count, processes, r) for r in range(repeats)]
    agrees = True
    for path in sorted(folder.glob("*.sqlite3")):
        if not path.name.startswith("raw_"):
            with SqlStore(f"sqlite:///{path}", create=False) as store:
                agrees = agrees and store.rebuild_statistics().agrees
    summary = []
    for index, case in enumerate(rounds[0]):
        same = [round_[index] for round_ in rounds]
        rate = statistics.median(c.rate for c in same)
        raw_rate = statistics.median(c.raw_rate or 0.0 for c in same)
        summary.append(
            {
                "name": case.name,
                "outcomes": case.outcomes,
                "per_second": round(rate),
                "raw_per_second": round(raw_rate),
                "share_of_raw": round(
                    statistics.median(c.rate / (c.raw_rate or 1.0) for c in same), 3
                ),
                "rounds": [[round(c.rate), round(c.raw_rate or 0.0)] for c in same],
            }
        )
    return {
        "durability": durability,
        "save_decision_ms": {"median": median_ms, "p90": p90_ms},
        "cases": summary,
        "rebuild_agrees": agrees,
    }


def run_postgres(url: str, count: int) -> dict[str, Any]:
    """One process against PostgreSQL (a fresh schema), one outcome per call and batched."""
    from engine.adapters.store.sandbox import temporary_schema  # noqa: PLC0415 - only with --postgres

    with temporary_schema(url, prefix="thinkpath_bench") as schema_url:
        with SqlStore(schema_url) as store:
            store.save_decisions(decisions_of("one", count) + decisions_of("batch", count))
        one = store_one_by_one(schema_url, "normal", outcomes_of(decisions_of("one", count)))
        batch = store_batched(schema_url, "normal", outcomes_of(decisions_of("batch", count)))
        median_ms, p90_ms = decision_latency(schema_url, "normal", min(count, 1_000))
    return {
        "one_by_one_per_second": round(count / one),
        "batch_per_second": round(count / batch),
        "save_decision_ms": {"median": median_ms, "p90": p90_ms},
    }


def side_by_side(before: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Each checkout's outcomes per second, a fresh process per round and checkout (see the
    module): one process one outcome per call, the processes at once and the batch API on
    SQLite, and one outcome per call and batched on PostgreSQL."""
    from experiments.benchmarks.checkouts import HERE, run_on  # noqa: PLC0415 - only here

    checkouts = {"before": before.resolve(), "after": HERE}
    options = [
        f"--outcomes={args.outcomes}",
        f"--processes={args.processes}",
        f"--durability={args.durability}",
        "--repeats=1",
        "--one-line",
        *([f"--postgres={args.postgres}"] if args.postgres else []),
    ]
    rates: dict[str, dict[str, list[float]]] = {name: {} for name in checkouts}
    for round_number in range(args.repeats):
        order = list(checkouts) if round_number % 2 == 0 else list(checkouts)[::-1]
        for name in order:
            measured = run_on(checkouts[name], __file__, options)
            found = {f"sqlite: {case['name']}": case["per_second"] for case in measured["cases"]}
            for key in ("one_by_one_per_second", "batch_per_second"):
                if "postgres" in measured:
                    found[f"postgresql: {key}"] = measured["postgres"][key]
            for key, rate in found.items():
                rates[name].setdefault(key, []).append(rate)
    medians = {
        name: {key: round(statistics.median(values)) for key, values in by_case.items()}
        for name, by_case in rates.items()
    }
    return {
        "rounds": rates,
        "median_per_second": medians,
        "after_over_before": {
            key: round(medians["after"][key] / value, 3)
            for key, value in medians["before"].items()
            if value
        },
    }


def main() -> None:
    """Parse the options, run the benchmark, print (and optionally save) the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--outcomes", type=int, default=4_000, help="per process and case")
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3, help="rounds; medians are reported")
    parser.add_argument("--durability", choices=["normal", "full"], default="normal")
    parser.add_argument("--postgres", help="also measure this PostgreSQL URL")
    parser.add_argument("--before", type=Path, help="another checkout to measure alongside")
    parser.add_argument("--json", type=Path, help="write the results here as JSON")
    parser.add_argument("--one-line", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.before is not None:
        results = side_by_side(args.before, args)
    else:
        with tempfile.TemporaryDirectory(prefix="thinkpath-bench-") as folder:
            results = run(
                args.outcomes, args.processes, args.durability, Path(folder), args.repeats
            )
        if args.postgres:
            results["postgres"] = run_postgres(args.postgres, args.outcomes)
    print(json.dumps(results, indent=None if args.one_line else 2))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
