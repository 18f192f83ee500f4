"""Split a long online evaluation across cores: warm its request cache with the engine variants.

The online evaluation (`thinkpath experiments run online`) runs the bare model and the forced
arms first, then each engine variant, all in one process on one core. On a 2-core machine a
second process can run the engine variants at the same time, in the reverse order, into the same
request cache (`CachingLLM` shares one file between processes: a miss first reads what the other
process appended). When both are done, the evaluation's own run finds every request it needs
cached, and it alone reports (tables, plots, MLflow).

    thinkpath experiments run online --home H --set suite=bigbench ... --set variants=a,b,c &
    python -m experiments.online_warm --home H --set suite=bigbench ... --set variants=a,b,c

Give both the same `--home` and `--set` values; the warmer takes the variants (and the orders)
last-first, so the two processes meet in the middle.
"""

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from engine.domain.ports import LLM, Searcher
from engine.errors import ThinkPathError
from experiments.experiment import ExperimentContext
from experiments.online import engine_runs, stream_orders
from experiments.online_experiment import (
    OnlineParams,
    _settings,
    _templates,
    cached_collaborators,
    task_suite,
)
from experiments.registry import get_experiment, parse_overrides, resolve_params

__all__ = ["main", "warm"]


def warm(
    params: OnlineParams,
    context: ExperimentContext,
    *,
    llm: LLM | None = None,
    searcher: Searcher | None = None,
) -> tuple[int, int]:
    """Run the engine variants of `params`, last first, through the evaluation's cache; the
    cache's (hits, misses). `llm` and `searcher` default to the configured ones, as in
    `run_online`."""
    settings = _settings(params, context)
    cached, searcher = cached_collaborators(params, context, settings, llm=llm, searcher=searcher)
    tasks = task_suite(params).tasks
    orders = stream_orders(len(tasks), params.orders)  # the evaluation's, seeds included
    for variant in reversed(params.variants):
        advance = context.progress(len(tasks) * len(orders), f"engine ({variant}), warming")
        # orders last-first too: the main process, on the same variant, starts at order 0
        engine_runs(
            variant,
            list(reversed(list(enumerate(orders)))),
            tasks,
            llm=cached,
            settings=settings,
            searcher=searcher,
            templates=_templates(params),
            advance=advance,
        )
    return cached.hits, cached.misses


def _printed_progress(total: int, label: str) -> Callable[[int], None]:
    """A progress line every 10% (the warmer runs in the background, into a log)."""
    done = [0]

    def advance(steps: int) -> None:
        before, done[0] = done[0], done[0] + steps
        if done[0] * 10 // total > before * 10 // total or done[0] == total:
            print(f"{label}: {done[0]}/{total}", flush=True)

    return advance


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.online_warm",
        description="Warm the online evaluation's request cache with its engine variants, in a "
        "second process beside `thinkpath experiments run online` (same --home, same --set).",
    )
    parser.add_argument("--home", required=True, help="the evaluation's THINKPATH home")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)
    try:
        params = resolve_params(get_experiment("online"), parse_overrides(args.set), quick=False)
        assert isinstance(params, OnlineParams)
        context = ExperimentContext(data_dir=Path(args.home), progress=_printed_progress)
        hits, misses = warm(params, context)
    except ThinkPathError as error:
        print(f"online_warm: error: {error}", file=sys.stderr)
        return 2
    print(f"warmed: {misses} requests asked, {hits} answered from the cache")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
