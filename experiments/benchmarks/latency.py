"""Per-step latency (one select + one update), timed interleaved with the NumPy reference.

A shared machine's speed drifts from second to second. Timing a contender for a short block of
steps, then the reference for a block, alternating which goes first, exposes both to the same
noise; the ratio of each pair is then far steadier than either absolute time, and the median of
those ratios is the headline. Blocks are kept short (well under a scheduler time slice) and
numerous, so that a block hit by preemption is an outlier that the median ignores rather than
the rule; the garbage collector is paused while a block runs, for both alike.
"""

import gc
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from engine.errors import ConfigError
from experiments.benchmarks.environments import stationary_uniform
from experiments.benchmarks.harness import arm_names
from experiments.benchmarks.peers import BanditPolicy, NumPyThompson


@dataclass(frozen=True)
class Latency:
    """Medians of microseconds per step, and the median of the paired ratios to the reference."""

    contender_us: float
    reference_us: float
    ratio: float
    rounds: int


def _time_block(policy: BanditPolicy, index: dict[str, int], rewards: list[list[float]]) -> float:
    """Nanoseconds per step over a block of steps (one select + one update each)."""
    gc.disable()
    try:
        start = time.perf_counter_ns()
        for row in rewards:
            arm = policy.select()
            policy.update(arm, row[index[arm]])
        elapsed = time.perf_counter_ns() - start
    finally:
        gc.enable()
    return elapsed / len(rewards)


def interleaved_latency(
    build: Callable[[list[str], int], BanditPolicy],
    n_arms: int,
    *,
    rounds: int = 200,
    block: int = 20,
    reference_block: int = 20,
    seed: int = 0,
) -> Latency:
    """Time `build`'s policy against `NumPyThompson`, `rounds` paired blocks of `block` steps.

    Both policies first play one untimed block (imports, caches, first allocations), then learn
    from the same reward table as the timing goes on, so their states stay comparable. The
    reference keeps its own block size whatever the contender's: a block of one or two steps
    carries the timer's and a cold cache's cost, which would inflate the reference's per-step
    time, and so flatter a slow contender's ratio, if it had to shrink along with the contender's.
    """
    if rounds < 1 or block < 1 or reference_block < 1:
        raise ConfigError(
            f"rounds and blocks must be at least 1, got {rounds}, {block} and {reference_block}"
        )
    arms = arm_names(n_arms)
    index = {arm: i for i, arm in enumerate(arms)}
    size = max(block, reference_block)
    table = stationary_uniform(n_arms, (rounds + 1) * size, np.random.default_rng(seed)).rewards
    # Rewards as Python floats: both policies then get exactly what a caller would pass.
    chunks = [table[i * size : (i + 1) * size].tolist() for i in range(rounds + 1)]
    contender = build(arms, seed)
    reference = NumPyThompson(arms, seed)
    lengths = {id(contender): block, id(reference): reference_block}
    for policy in (contender, reference):
        _time_block(policy, index, chunks[0][: lengths[id(policy)]])
    contender_ns: list[float] = []
    reference_ns: list[float] = []
    gc.collect()
    for i in range(1, rounds + 1):
        pair = [(contender, contender_ns), (reference, reference_ns)]
        for policy, sink in pair if i % 2 else pair[::-1]:
            sink.append(_time_block(policy, index, chunks[i][: lengths[id(policy)]]))
    ratios = np.array(contender_ns) / np.array(reference_ns)
    return Latency(
        contender_us=float(np.median(contender_ns)) / 1000.0,
        reference_us=float(np.median(reference_ns)) / 1000.0,
        ratio=float(np.median(ratios)),
        rounds=rounds,
    )
