"""Start-up on a long log, two checkouts alternated on the very same stores, CPU seconds beside
wall seconds: what `startup --before` measures, made to hold on a loaded shared machine.

    python -m experiments.benchmarks.startup_rounds --before DIR [--outcomes 1000,200000]
        [--per-decision 16] [--tail 700] [--rounds 3] [--builds 6] [--json results.json]

Each size's store is filled once, by this checkout (`startup.fill`, a checkpoint, then
`startup.late_scores`: the tail reaches back into the whole log). Then, each round, each
checkout (the first to go alternating) builds its engine `--builds` times on its own copy of
that store in a fresh process (`experiments.benchmarks.checkouts`); the first build, which
parses the templates and warms the process, is not counted. Reported per size and checkout: the
medians over rounds of each round's median wall and CPU seconds (`time.process_time`: at load 13
on two cores a process waits for a core most of the time, and wall seconds then say more about
the machine than about the code), with the load average at each round.
"""

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

NAMESPACE = "startup"


def measure(path: Path, builds: int) -> dict[str, float]:
    """`builds` engines on a copy of the store at `path` (this process's code): the medians of
    all but the first."""
    from engine.adapters.store.sql import SqlStore  # noqa: PLC0415 - the checkout's own code
    from experiments.benchmarks import startup  # noqa: PLC0415

    walls, cpus = [], []
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder) / "store.sqlite3"
        shutil.copy(path, work)
        with SqlStore(f"sqlite:///{work}") as store:
            for index in range(builds):
                wall, cpu = time.perf_counter(), time.process_time()
                startup.build(store, every=0)
                if index:
                    walls.append(time.perf_counter() - wall)
                    cpus.append(time.process_time() - cpu)
    return {
        "wall_s": round(statistics.median(walls), 3),
        "cpu_s": round(statistics.median(cpus), 3),
        "load": round(os.getloadavg()[0], 1),
    }


def fill(path: Path, outcomes: int, per_decision: int, tail: int) -> None:
    from engine.adapters.store.sql import SqlStore  # noqa: PLC0415
    from experiments.benchmarks import startup  # noqa: PLC0415

    with SqlStore(f"sqlite:///{path}") as store:
        startup.fill(store, outcomes, per_decision=per_decision)
        startup.build(store, every=1)  # the checkpoint, due at once
        startup.late_scores(store, outcomes // per_decision, tail)


def run(args: argparse.Namespace) -> dict[str, Any]:
    from experiments.benchmarks.checkouts import HERE, run_on  # noqa: PLC0415

    checkouts = {"before": args.before.resolve(), "after": HERE}
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="thinkpath-startup-") as folder:
        for size in (int(size) for size in str(args.outcomes).split(",")):
            path = Path(folder) / f"store-{size}.sqlite3"
            fill(path, size, args.per_decision, args.tail)
            rounds: dict[str, list[dict[str, float]]] = {name: [] for name in checkouts}
            for number in range(args.rounds):
                order = list(checkouts) if number % 2 == 0 else list(checkouts)[::-1]
                for name in order:
                    options = ["--measure", str(path), f"--builds={args.builds}"]
                    rounds[name].append(run_on(checkouts[name], __file__, options))
            results[str(size)] = {
                name: {
                    "wall_s": statistics.median(r["wall_s"] for r in measured),
                    "cpu_s": statistics.median(r["cpu_s"] for r in measured),
                    "rounds": measured,
                }
                for name, measured in rounds.items()
            }
            print(size, json.dumps(results[str(size)]), file=sys.stderr, flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="the checkout to measure alongside")
    parser.add_argument("--outcomes", default="1000,200000")
    parser.add_argument("--per-decision", type=int, default=16)
    parser.add_argument("--tail", type=int, default=700)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--builds", type=int, default=6)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)  # one side, one store
    args = parser.parse_args()
    if args.measure is not None:
        print(json.dumps(measure(args.measure, args.builds)))
        return
    if args.before is None or args.builds < 2 or args.rounds < 1:
        parser.error("give --before DIR, --builds of at least 2 and --rounds of at least 1")
    results = run(args)
    print(json.dumps(results, indent=2))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
