"""The engine's own time per decision: everything but the model, the searcher and the disk.

    .venv/bin/python -m experiments.benchmarks.overhead --decisions 400 [--before DIR --rounds 3]
    .venv/bin/python -m experiments.benchmarks.overhead --decisions 400 --before DIR --lockstep

A scripted stand-in model answers at once, a small in-memory searcher stands in for retrieval,
and a hashing embedder (`retrieval.embedding.HashingEmbedder`, 384 numbers as the shipped model's)
stands in for the sentence-embedding model that finds each query's kind, so what is timed is the
engine: finding the kind among the known ones, features, seed check, the policies' view (P(best)
and propensities), rating and detour decisions, both picks, the trace, the commit and the replay
of the outcome. The embedding model's own cost (some 8 ms a query on a quiet machine) is measured
where kinds are found, by the kinds benchmark (`python -m experiments.kinds`, its find-kind
milliseconds). Three engines decide the same stream side by side, interleaved query by query so
that the shared machine's noise falls on all of them alike:

- `memory`: the in-memory store, with P(best) by quadrature for the Beta posteriors
  (`learning.posterior`);
- `sqlite`: the same on a SQLite file (a durable commit per decision);
- `reference`: the in-memory store with P(best) from a fixed 4,096 Monte Carlo draws, as every
  decision paid before the error-bounded estimate and quadrature.

It prints the median and 95th percentile per engine and the ratios to the reference, and the
median of the process's CPU time per decision (`cpu_median_ms`: on a shared machine, wall time
also counts the time other jobs held the cores). With
`--before DIR` (another checkout, run with this virtual environment) each round runs the whole
measurement once on that checkout's code and once on this one's, in fresh processes
(`experiments.benchmarks.checkouts`), and the medians of the rounds are reported side by side.
With `--lockstep` instead, the two checkouts run in two processes at once and decide the same
stream one query each in turn (the first to go alternating): on a shared host whose speed drifts
over minutes, rounds half a minute long differed by 30% while the lockstep ratio held to 0.02.
"""

import argparse
import inspect
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from engine.adapters.llm.scripted import ScriptedLLM, canned_script
from engine.adapters.memory_searcher import InMemorySearcher
from engine.adapters.store.memory import InMemoryStore
from engine.adapters.store.sql import SqlStore
from engine.compose import build_engine
from engine.domain.ports import Store
from engine.domain.records import Passage
from engine.orchestration.facade import Engine
from engine.settings import load_settings
from learning import posterior

PASSAGES = [
    Passage("The sum of two numbers is their total.", "notes/sum.md"),
    Passage("The first letter of a word is its initial.", "notes/letters.md"),
    Passage("A kilometre is 1000 metres; a mile is about 1.609 kilometres.", "notes/units.md"),
]
EMBEDDING_DIMENSION = 384  # as the shipped model's vectors; the kinds book keeps them all


def stream(count: int) -> list[tuple[str, Callable[[str], float]]]:
    """Queries of three families with a checker each (alternating right and wrong answers)."""
    tasks: list[tuple[str, Callable[[str], float]]] = []
    for index in range(count):
        family = index % 3
        if family == 0:
            query = f"What is {index} + {index + 3}?"
        elif family == 1:
            query = f"What is the first letter of the word 'item{index}'?"
        else:
            query = f"How many metres are in {index} kilometres?"
        tasks.append((query, _constant(float(index % 2))))
    return tasks


def _constant(reward: float) -> Callable[[str], float]:
    def checker(_answer: str) -> float:
        return reward

    return checker


def build(store: Store, *, model: bool = False) -> Engine:
    """An engine on `store` with the stand-ins; with `model`, the shipped embedding model (as
    `build_engine` loads it, its cache included) instead of the hashing stand-in."""
    settings = load_settings(store_url="memory", policy_seed=7)
    stand_ins: dict[str, Any] = {
        "llm": ScriptedLLM(canned_script),
        "store": store,
        "searcher": InMemorySearcher(PASSAGES),
    }
    # A checkout from before kinds of query (`--before`) has no embedder to stand in for.
    if "embedder" in inspect.signature(build_engine).parameters:
        from retrieval.embedding import HashingEmbedder  # noqa: PLC0415 - only where it exists

        stand_ins["embedder"] = HashingEmbedder(EMBEDDING_DIMENSION)
        if model:
            from engine.compose import build_embedder  # noqa: PLC0415 - only with the model

            stand_ins["embedder"] = build_embedder(settings)
            stand_ins["embedder"].embed(["warm up"])  # the session loads on the first call
    return build_engine(settings, **stand_ins)


@contextmanager
def fixed_draws() -> Iterator[None]:
    """P(best) as before quadrature and the error bound: always the full 4,096 draws."""
    saved = posterior.STANDARD_ERROR, posterior.EXACT
    posterior.STANDARD_ERROR, posterior.EXACT = 0.0, False
    try:
        yield
    finally:
        posterior.STANDARD_ERROR, posterior.EXACT = saved


def build_engines(folder: Path, *, model: bool = False) -> tuple[dict[str, Engine], SqlStore]:
    """The three engines side by side (see the module), with `model` a fourth whose kinds are
    found by the embedding model, and the SQLite store to close."""
    sqlite = SqlStore(f"sqlite:///{folder / 'store.sqlite3'}")
    engines = {
        "memory": build(InMemoryStore()),
        "sqlite": build(sqlite),
        "reference": build(InMemoryStore()),
    }
    if model:
        engines["model"] = build(InMemoryStore(), model=True)
    return engines, sqlite


def decide_once(
    engines: dict[str, Engine], query: str, checker: Callable[[str], float]
) -> dict[str, tuple[float, float]]:
    """Each engine's wall and CPU seconds for one decision of `query`, in turn."""
    timed = {}
    for name, engine in engines.items():
        started, cpu_started = time.perf_counter(), time.process_time()
        if name == "reference":
            with fixed_draws():
                engine.decide(query, checker=checker)
        else:
            engine.decide(query, checker=checker)
        timed[name] = (time.perf_counter() - started, time.process_time() - cpu_started)
    return timed


def run(decisions: int, warmup: int, *, model: bool = False) -> dict[str, dict[str, float]]:
    with tempfile.TemporaryDirectory() as folder:
        engines, sqlite = build_engines(Path(folder), model=model)
        seconds: dict[str, list[float]] = {name: [] for name in engines}
        cpu: dict[str, list[float]] = {name: [] for name in engines}
        for index, (query, checker) in enumerate(stream(warmup + decisions)):
            timed = decide_once(engines, query, checker)
            if index >= warmup:
                for name, (wall, used) in timed.items():
                    seconds[name].append(wall)
                    cpu[name].append(used)
        sqlite.close()
    return summary(seconds, cpu)


def embedding_alone(count: int) -> dict[str, float]:
    """The embedding model's own time for one query of the stream, at the median: asked the
    first time (the model runs) and asked again (the cache answers: a decision whose seed or
    local-search tool searches the index with its query, or a query asked before)."""
    from engine.compose import build_embedder  # noqa: PLC0415 - only with the model
    from engine.domain.kinds import KIND_TEXT_CHARS  # noqa: PLC0415

    embedder = build_embedder(load_settings(store_url="memory"))
    embedder.embed(["warm up"])
    first: list[float] = []
    again: list[float] = []
    for query, _checker in stream(count):
        text = f"{query} (timed)"[:KIND_TEXT_CHARS]  # not one the engines embedded
        for times in (first, again):
            started = time.perf_counter()
            embedder.embed([text])
            times.append(time.perf_counter() - started)
    return {
        "first_median_ms": round(statistics.median(first) * 1000, 3),
        "first_p90_ms": round(statistics.quantiles(first, n=10)[-1] * 1000, 3),
        "again_median_ms": round(statistics.median(again) * 1000, 3),
        "again_p90_ms": round(statistics.quantiles(again, n=10)[-1] * 1000, 3),
    }


def summary(seconds: dict[str, list[float]], cpu: dict[str, list[float]]) -> dict[str, Any]:
    reference = statistics.median(seconds["reference"])
    return {
        name: {
            "median_ms": round(statistics.median(values) * 1000, 3),
            "p90_ms": round(statistics.quantiles(values, n=10)[-1] * 1000, 3),
            "p95_ms": round(statistics.quantiles(values, n=20)[-1] * 1000, 3),
            "ratio_to_reference": round(statistics.median(values) / reference, 3),
            # The process's CPU time (every thread's, tool workers included): on a shared
            # machine it leaves out the time other jobs held the cores, which wall time counts.
            "cpu_median_ms": round(statistics.median(cpu[name]) * 1000, 3),
        }
        for name, values in seconds.items()
    }


def serve(count: int) -> None:
    """For `lockstep`: decide query i of the stream on each engine for every line "i" read,
    and answer each with the engines' [wall, cpu] seconds as one JSON line."""
    tasks = stream(count)
    with tempfile.TemporaryDirectory() as folder:
        engines, sqlite = build_engines(Path(folder))
        print("ready", flush=True)
        for line in sys.stdin:
            query, checker = tasks[int(line)]
            print(json.dumps(decide_once(engines, query, checker)), flush=True)
        sqlite.close()


def lockstep(before: Path, decisions: int, warmup: int) -> dict[str, Any]:
    """Both checkouts decide the same stream in two processes, one query each in turn (the
    first to go alternating), so that the machine's drift, minutes long on a shared host,
    falls on both alike; medians of each side, and their ratio."""
    from experiments.benchmarks.checkouts import HERE, start_on  # noqa: PLC0415 - only here

    count = warmup + decisions
    sides = {"before": before.resolve(), "after": HERE}
    workers = {
        name: start_on(path, __file__, ["--serve", str(count)]) for name, path in sides.items()
    }
    seconds: dict[str, dict[str, list[float]]] = {name: {} for name in sides}
    cpu: dict[str, dict[str, list[float]]] = {name: {} for name in sides}
    try:
        for worker in workers.values():
            worker.expect("ready")
        for index in range(count):
            order = list(sides) if index % 2 == 0 else list(sides)[::-1]
            for name in order:
                timed = json.loads(workers[name].ask(str(index)))
                if index < warmup:
                    continue
                for engine, (wall, used) in timed.items():
                    seconds[name].setdefault(engine, []).append(wall)
                    cpu[name].setdefault(engine, []).append(used)
    finally:
        for worker in workers.values():
            worker.close()
    results: dict[str, Any] = {name: summary(seconds[name], cpu[name]) for name in sides}
    results["after_over_before"] = {
        engine: round(results["after"][engine]["median_ms"] / figures["median_ms"], 3)
        for engine, figures in results["before"].items()
    }
    return results


def side_by_side(before: Path, decisions: int, warmup: int, rounds: int) -> dict[str, Any]:
    """Medians over `rounds` of each engine's median, on `before`'s code and on this one's."""
    from experiments.benchmarks.checkouts import HERE, run_on  # noqa: PLC0415 - only here

    checkouts = {"before": before.resolve(), "after": HERE}
    medians: dict[str, dict[str, list[float]]] = {name: {} for name in checkouts}
    cpu: dict[str, dict[str, list[float]]] = {name: {} for name in checkouts}
    for _ in range(rounds):
        for name, checkout in checkouts.items():
            options = [f"--decisions={decisions}", f"--warmup={warmup}", "--one-line"]
            for engine, figures in run_on(checkout, __file__, options).items():
                medians[name].setdefault(engine, []).append(figures["median_ms"])
                cpu[name].setdefault(engine, []).append(figures["cpu_median_ms"])
    return {
        name: {
            engine: {
                "median_ms": round(statistics.median(values), 3),
                "rounds": values,
                "cpu_median_ms": round(statistics.median(cpu[name][engine]), 3),
                "cpu_rounds": cpu[name][engine],
            }
            for engine, values in by_engine.items()
        }
        for name, by_engine in medians.items()
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decisions", type=int, default=400, help="timed decisions per engine")
    parser.add_argument("--warmup", type=int, default=100, help="untimed decisions first")
    parser.add_argument("--before", type=Path, help="another checkout to measure alongside")
    parser.add_argument("--rounds", type=int, default=3, help="with --before: rounds, alternated")
    parser.add_argument(
        "--lockstep",
        action="store_true",
        help="with --before: one query each in turn in two processes, instead of rounds",
    )
    parser.add_argument(
        "--model",
        action="store_true",
        help="also an engine whose kinds the shipped embedding model finds (its time included)",
    )
    parser.add_argument("--one-line", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)  # a lockstep worker
    args = parser.parse_args(argv)
    if args.serve is not None:
        serve(args.serve)
        return 0
    if args.decisions < 20 or args.warmup < 0 or args.rounds < 1:
        parser.error("--decisions must be at least 20, --warmup at least 0, --rounds at least 1")
    if args.lockstep and args.before is None:
        parser.error("--lockstep needs --before")
    if args.lockstep:
        results = lockstep(args.before, args.decisions, args.warmup)
    elif args.before is not None:
        results = side_by_side(args.before, args.decisions, args.warmup, args.rounds)
    else:
        results = run(args.decisions, args.warmup, model=args.model)
        if args.model:
            results["embedding"] = embedding_alone(args.decisions)
    print(json.dumps(results, indent=None if args.one_line else 2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
