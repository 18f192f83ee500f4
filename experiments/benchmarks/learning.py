"""The learning benchmark: ThinkPath's policies beside MABWiser and plain NumPy, regret and latency.

Run ``python -m experiments.benchmarks.learning`` (add ``--quick`` for a smoke run, ``--out
FILE.md`` to keep the Markdown). Regret runs go to a pool of at most two processes; latency is
timed afterwards in this process alone, interleaved with the NumPy reference.
"""

import argparse
import sys
import time
from collections.abc import Iterable, Sequence, Set
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

from experiments.benchmarks.contenders import Contender, build_contender, lineup
from experiments.benchmarks.environments import standard_workloads
from experiments.benchmarks.harness import arm_names, play
from experiments.benchmarks.latency import interleaved_latency
from experiments.benchmarks.peers import BanditPolicy, VarianceChooser
from experiments.benchmarks.report import render
from experiments.benchmarks.results import (
    BenchmarkResults,
    LatencyRow,
    reuse_peer_runs,
    save_runs,
)

# The change-detecting policy's registry name, the first of these that is registered.
DRIFT_POLICY_NAMES = ("glr_thompson", "drift_thompson", "change_detecting_thompson")
# Policy seeds are offset from environment seeds so that no policy shares a stream with a table.
POLICY_SEED_OFFSET = 1_000_003
MAX_WORKERS = 2


@dataclass(frozen=True)
class Task:
    """One (workload, contender, seed) run, small enough to ship to a worker process."""

    workload: str
    contender: Contender
    seed: int
    horizon: int


@dataclass(frozen=True)
class Outcome:
    """What a worker sends back for one task."""

    task: Task
    regret: float
    seconds: float
    choice: str | None


def run_task(task: Task) -> Outcome:
    """Build the seed's environment and the contender, play it through, return its regret."""
    workload = standard_workloads()[task.workload]
    environment = workload.build(task.horizon, task.seed)
    policy = build_contender(
        task.contender.key,
        arm_names(workload.n_arms),
        workload.context_dim,
        POLICY_SEED_OFFSET + task.seed,
    )
    start = time.perf_counter()
    chosen = play(policy, environment)
    seconds = time.perf_counter() - start
    choice = _choice_of(task.contender, policy)
    return Outcome(task, environment.regret_of(chosen), seconds, choice)


def _choice_of(contender: Contender, policy: BanditPolicy) -> str | None:
    """The algorithm a chooser settled on: the naive baseline's pick, or what `auto` built."""
    if isinstance(policy, VarianceChooser):
        return policy.chosen_name
    if contender.key == "ours:auto":
        return str(getattr(policy, "name", "?"))
    return None


def plan(
    workloads: Sequence[str],
    seeds: int,
    horizon: int,
    skip: Sequence[str] = (),
    done: Set[tuple[str, str]] = frozenset(),
) -> list[Task]:
    """Every run the table needs, the slow MABWiser ones first so the pool ends evenly.

    `skip` names contenders left out of the regret runs (a key such as ``mabwiser:ucb1`` or one
    of our policy names); they are still timed for latency. `done` holds (workload, key) pairs
    whose rows are already there (reused from an earlier run).
    """
    all_workloads = standard_workloads()
    skipped = set(skip)
    tasks = [
        Task(key, contender, seed, horizon)
        for key in workloads
        for contender in lineup(key, all_workloads[key].context_dim is not None)
        if not {contender.key, contender.key.removeprefix("ours:")} & skipped
        and (key, contender.key) not in done
        for seed in range(seeds)
    ]
    return sorted(tasks, key=lambda task: not task.contender.key.startswith("mabwiser:"))


def run_regret(results: BenchmarkResults, tasks: list[Task], workers: int) -> None:
    """Run every task (in a pool when `workers` > 1) and record the outcomes as they come."""
    if workers == 1:
        _record_all(results, map(run_task, tasks), len(tasks))
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        _record_all(results, pool.map(run_task, tasks, chunksize=4), len(tasks))


def _record_all(results: BenchmarkResults, outcomes: Iterable[Outcome], total: int) -> None:
    # Progress goes to stderr so that stdout stays the Markdown report alone.
    for done, outcome in enumerate(outcomes, start=1):
        task = outcome.task
        results.runset(task.workload, task.contender).add(
            task.seed, outcome.regret, outcome.seconds, outcome.choice
        )
        if done % max(1, total // 10) == 0:
            print(f"regret runs: {done}/{total}", file=sys.stderr, flush=True)


def latency_lineup(n_arms: int) -> list[Contender]:
    """Who is timed at `n_arms`: every context-free policy of ours at K=10, the leads at K=100."""
    rows = [row for row in lineup("stationary", contextual=False) if row.key != "naive-variance"]
    if n_arms > 10:
        wanted = {"ours:thompson", "ours:auto", "numpy-ts", "mabwiser:thompson"}
        rows = [row for row in rows if row.key in wanted]
    return [row for row in rows if row.key != "mabwiser:ucb1"]


def _build_context_free(key: str, arms: list[str], seed: int) -> BanditPolicy:
    return build_contender(key, arms, None, seed, timing=True)


def run_latency(results: BenchmarkResults, arm_counts: Sequence[int], rounds: int) -> None:
    """Time each contender interleaved with the NumPy reference; MABWiser in shorter blocks."""
    for n_arms in arm_counts:
        for contender in latency_lineup(n_arms):
            # MABWiser takes milliseconds a step: one step already makes a long block.
            block = 1 if contender.key.startswith("mabwiser:") else 20
            latency = interleaved_latency(
                partial(_build_context_free, contender.key),
                n_arms,
                rounds=rounds,
                block=block,
            )
            results.latency.append(LatencyRow(contender, n_arms, latency))


def drift_policy_key() -> str:
    """`ours:<name>` of the registered change-detecting policy (or of the first candidate)."""
    from learning import available_policies  # noqa: PLC0415 - lazily, like every policy import

    names = set(available_policies())
    found = [name for name in DRIFT_POLICY_NAMES if name in names]
    return f"ours:{(found or list(DRIFT_POLICY_NAMES))[0]}"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Command-line options; bad values are usage errors that name the option."""
    parser = argparse.ArgumentParser(
        prog="python -m experiments.benchmarks.learning", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--seeds", type=int, default=None, help="seeds per row (default 20)")
    parser.add_argument("--horizon", type=int, default=None, help="steps per run (default 10000)")
    parser.add_argument("--quick", action="store_true", help="smoke run: 3 seeds, T=600")
    parser.add_argument("--out", type=Path, help="also write the Markdown report to this file")
    parser.add_argument(
        "--workloads",
        nargs="+",
        choices=sorted(standard_workloads()),
        default=list(standard_workloads()),
    )
    parser.add_argument(
        "--skip",
        nargs="+",
        default=[],
        metavar="NAME",
        help="leave these out of the regret runs (policy names or keys like mabwiser:ucb1)",
    )
    parser.add_argument("--json", type=Path, help="also write every run's per-seed results here")
    parser.add_argument(
        "--reuse",
        type=Path,
        help="take the peer rows from an earlier --json of the same seeds and horizon",
    )
    parser.add_argument("--workers", type=int, default=MAX_WORKERS, help="processes (1 or 2)")
    parser.add_argument("--latency-rounds", type=int, default=None, help="paired timing blocks")
    args = parser.parse_args(argv)
    args.seeds = args.seeds or (3 if args.quick else 20)
    args.horizon = args.horizon or (600 if args.quick else 10_000)
    args.latency_rounds = args.latency_rounds or (20 if args.quick else 200)
    if args.seeds < 2:
        parser.error(f"--seeds must be at least 2 for a confidence interval, got {args.seeds}")
    if args.horizon < 2:
        parser.error(f"--horizon must be at least 2, got {args.horizon}")
    if not 1 <= args.workers <= MAX_WORKERS:
        parser.error(f"--workers must be 1 or 2 (the machine is shared), got {args.workers}")
    if args.latency_rounds < 1:
        parser.error(f"--latency-rounds must be at least 1, got {args.latency_rounds}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark, print the Markdown report and optionally write it to `--out`."""
    args = parse_args(argv)
    shown = " ".join(sys.argv[1:] if argv is None else argv)
    command = f"python -m experiments.benchmarks.learning {shown}".strip()
    workloads = standard_workloads()
    results = BenchmarkResults(
        command=command,
        seeds=args.seeds,
        horizon=args.horizon,
        workload_titles={key: workloads[key].title for key in args.workloads},
    )
    reused = set() if args.reuse is None else reuse_peer_runs(results, args.reuse)
    if reused:
        results.notes.append(
            f"Peer rows reused from {args.reuse} (same seeds and horizon; a peer's regret is a "
            f"deterministic function of the seed): {len(reused)} rows."
        )
    started = time.perf_counter()
    tasks = plan(args.workloads, args.seeds, args.horizon, args.skip, reused)
    run_regret(results, tasks, args.workers)
    regret_seconds = time.perf_counter() - started
    run_latency(results, (10, 100), args.latency_rounds)
    latency_seconds = time.perf_counter() - started - regret_seconds
    if args.skip:
        results.notes.append(
            f"Left out of the regret runs to keep the run within its time budget: "
            f"{', '.join(args.skip)} (still timed above)."
        )
    results.notes.append(
        f"Run on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; regret runs took {regret_seconds:,.0f} s "
        f"on {args.workers} process(es), latency {latency_seconds:,.0f} s."
    )
    report = render(results, drift_policy_key())
    print(report, end="")
    if args.json is not None:
        save_runs(results, args.json)
    if args.out is not None:
        args.out.write_text(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
