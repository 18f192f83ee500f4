"""Benchmark: what one program-tool run costs, split into its parts (median of `--runs` runs).

- `interpreter`: a bare `python -I -S -c pass`, the floor for any fresh process;
- `check`: RestrictedPython's compile in the engine's process, before any process starts;
- `sandbox`: a whole `run_program("print(1)")`: check, start, imports, limits, run, reply.

The three are timed interleaved, round by round, so a machine that gets busier mid-run affects
all alike. Results are in docs/engine.md ("Program tool and sandbox").

    source scripts/offline-env
    .venv/bin/python -m experiments.benchmarks.sandbox --runs 20
"""

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence

from engine.adapters.tools.sandbox import check_program, run_program

PROGRAM = "print(1)"


def _bare_interpreter() -> None:
    subprocess.run([sys.executable, "-I", "-S", "-c", "pass"], check=True, env={})


def _check() -> None:
    check_program(PROGRAM)


def _sandbox() -> None:
    if run_program(PROGRAM).result != "1":
        raise RuntimeError("the sandbox did not print 1")


PARTS: dict[str, Callable[[], None]] = {
    "interpreter": _bare_interpreter,
    "check": _check,
    "sandbox": _sandbox,
}


def measure(runs: int) -> dict[str, float]:
    """Median milliseconds per part over `runs` interleaved rounds (one warm-up round first)."""
    if runs < 1:
        raise ValueError(f"runs must be at least 1, got {runs}")
    timings: dict[str, list[float]] = {name: [] for name in PARTS}
    for round_number in range(runs + 1):
        for name, part in PARTS.items():
            started = time.perf_counter()
            part()
            if round_number > 0:  # the first round warms the file cache and imports
                timings[name].append((time.perf_counter() - started) * 1000)
    return {name: round(statistics.median(values), 1) for name, values in timings.items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=20, help="timed rounds (default 20)")
    args = parser.parse_args(argv)
    medians = measure(args.runs)
    print(json.dumps({"runs": args.runs, "median_ms": medians}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
