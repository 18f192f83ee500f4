"""Pooling at many kinds: the memory and the time of `pooled_thompson` as kinds grow to 10,000.

A benchmark of one learning module, imported directly (it is `learning/`, below the engine).
Each kind is a unit vector of MiniLM's width (384) near one of 100 topic centres, as kinds of
query are; the policy has 10 arms, as the path role has. For each size J:

1. J kinds are created the way the engine creates them: an outcome in the kind, then its draw;
   then every kind is drawn for once more, as on a server that has met every kind in turn.
   Memory is what the policy's arrays hold then (`held_bytes`: every array it refers to).
2. Decision time: an outcome in a known kind, then its draw and its P(best) (the posterior is
   recomputed after every outcome), median over 300 kinds; the same for a kind not seen yet.
3. A new kind's cost: the outcome that creates it, median over 100 new kinds; and the decision
   in a known kind right after a new kind came (as on a server, where new kinds arrive between
   decisions): median over the same 100.

    python -m experiments.benchmarks.pooling --sizes 1000,2500,5000,9900 --json out.json

Run it once with this checkout first on PYTHONPATH and once with another's (the quadratic
version before it), on the same machine, and compare the figures as ratios.
"""

import argparse
import json
import statistics
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from learning.pooled_thompson import PooledThompsonSampling

ARMS = [f"path-{n}" for n in range(10)]
DIMENSION = 384
TOPICS = 100


def kinds(count: int, rng: np.random.Generator) -> np.ndarray:
    """`count` unit vectors, each near one of `TOPICS` centres (cosine about 0.7 with it)."""
    centres = rng.standard_normal((TOPICS, DIMENSION))
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    noise = rng.standard_normal((count, DIMENSION)) / np.sqrt(DIMENSION)
    vectors = centres[rng.integers(TOPICS, size=count)] + noise
    unit: np.ndarray = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return unit


def decide(policy: PooledThompsonSampling, context: np.ndarray, rng: np.random.Generator) -> None:
    """One outcome in the kind, then one decision there (the draw, and P(best) for the trace)."""
    policy.update(ARMS[int(rng.integers(len(ARMS)))], float(rng.random() < 0.5), context=context)
    policy.select(context=context)
    policy.prob_best(context=context)


def held_bytes(value: object, seen: set[int] | None = None) -> int:
    """The bytes of every numpy array `value` holds, through its attributes, dicts and lists
    (an array's base counted once: the views of one buffer share it), and of its bytes keys."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return 0
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        return value.nbytes if value.base is None else held_bytes(value.base, seen)
    if isinstance(value, bytes):
        return len(value)
    if hasattr(value, "__dict__") and not isinstance(value, type):
        value = vars(value)
    parts: list[object] = []
    if isinstance(value, Mapping):
        parts = [*value.keys(), *value.values()]
    elif isinstance(value, list | tuple):
        parts = list(value)
    return sum(held_bytes(part, seen) for part in parts)


def micros(seconds: list[float]) -> float:
    return round(1e6 * statistics.median(seconds), 1)


def measure(size: int, seed: int = 0) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    vectors = kinds(size + 100 + 300, rng)
    known, new, unseen = vectors[:size], vectors[size : size + 100], vectors[size + 100 :]
    policy = PooledThompsonSampling(ARMS, seed=seed, context_dim=DIMENSION)
    started = time.perf_counter()
    for vector in known:  # each kind created by an outcome, then drawn for
        policy.update(ARMS[0], 1.0, context=vector)
        policy.select(context=vector)
    build_seconds = time.perf_counter() - started
    for vector in known:  # then every kind drawn for once more
        policy.select(context=vector)
    memory = held_bytes(policy)
    decision, first_sight = [], []
    for index in rng.choice(size, size=300, replace=False):
        started = time.perf_counter()
        decide(policy, known[index], rng)
        decision.append(time.perf_counter() - started)
    for vector in unseen:  # a kind not seen yet: its prior pooled from its nearest, not stored
        started = time.perf_counter()
        policy.select(context=vector)
        policy.prob_best(context=vector)
        first_sight.append(time.perf_counter() - started)
    creating, after_new = [], []
    for vector, index in zip(new, rng.choice(size, size=len(new), replace=False), strict=True):
        started = time.perf_counter()
        policy.update(ARMS[0], 1.0, context=vector)
        creating.append(time.perf_counter() - started)
        started = time.perf_counter()
        policy.select(context=known[index])
        policy.prob_best(context=known[index])
        after_new.append(time.perf_counter() - started)
    return {
        "kinds": size,
        "memory_mb": round(memory / 2**20, 1),
        "build_s": round(build_seconds, 1),
        "decision_us": micros(decision),
        "unseen_kind_decision_us": micros(first_sight),
        "new_kind_us": micros(creating),
        "decision_after_new_kind_us": micros(after_new),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,2500,5000,9900")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    rows = []
    for size in (int(text) for text in args.sizes.split(",")):
        rows.append(measure(size))
        print(json.dumps(rows[-1]), flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
