"""Many families, few queries each: does a prior pooled across families cut regret?

`python -m experiments.pooling [--seeds 30]` prints the table of `docs/benchmarks.md`.

The simulator: `families` query families of `queries` queries each arrive in one shuffled stream
(the engine's situation: a new kind of query every few decisions). Arm a has a population mean
g_a ~ U(0.1, 0.9); in family f its success rate is p_fa ~ Beta(c g_a, c (1 - g_a)), so the
concentration c says how much families resemble each other:

- `alike` (c = 20): what works in one family mostly works in the others;
- `mixed` (c = 4): a shared tendency with much variation;
- `unrelated`: p_fa ~ U(0, 1), nothing shared (the case where pooling can only cost).

Rewards are Bernoulli(p_fa). Regret of a decision is max_a p_fa - p_f,chosen; a run's regret is
its sum over the stream. Every policy meets the same environments, stream orders and reward
draws (common random numbers), so differences are paired: the table gives each policy's mean
regret with a 95% Student-t interval over seeds and, for a pooled policy, its paired difference
from the same rule with every family from zero (`pooled_thompson` against `contextual_thompson`,
`pooled_bayes_ucb` against `contextual_bayes_ucb`).

>>> table = pooling_table(seeds=2, families=3, queries=4, arms=3, strengths=(4.0,))
>>> table.splitlines()[0]
'| world | policy | regret (95% CI) | vs the same rule from zero (95% CI) |'
"""

import argparse
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from scipy import stats

from experiments.plots import ValueRange
from learning import PolicyLike, make_policy

__all__ = ["WORLDS", "family_means", "interval", "pooling_table", "run_stream"]

WORLDS = ("alike", "mixed", "unrelated")
_CONCENTRATION = {"alike": 20.0, "mixed": 4.0}
# Each pooled rule, and the same rule with every family from zero.
FROM_ZERO = {"pooled_thompson": "contextual_thompson", "pooled_bayes_ucb": "contextual_bayes_ucb"}
Build = Callable[[int], PolicyLike]


def family_means(world: str, families: int, arms: int, rng: np.random.Generator) -> np.ndarray:
    """(families, arms) success rates drawn as the module says."""
    if world == "unrelated":
        return rng.uniform(0.0, 1.0, size=(families, arms))
    concentration = _CONCENTRATION[world]
    population = rng.uniform(0.1, 0.9, size=arms)
    return rng.beta(
        concentration * population, concentration * (1.0 - population), (families, arms)
    )


def run_stream(
    policy: PolicyLike, means: np.ndarray, order: np.ndarray, uniforms: np.ndarray
) -> float:
    """The policy's regret over the stream: `order[t]` is step t's family, and arm a pays 1 at
    step t when `uniforms[t, a] < means[family, a]`."""
    contexts = np.eye(means.shape[0])
    best = means.max(axis=1)
    regret = 0.0
    for step, family in enumerate(order):
        context = contexts[family] if policy.is_contextual else None
        index = policy.arms.index(policy.select(context=context))
        reward = float(uniforms[step, index] < means[family, index])
        policy.update(policy.arms[index], reward, context=context)
        regret += best[family] - means[family, index]
    return regret


def _builder(name: str, arms: int, **params: Any) -> Build:
    names = [f"arm{i}" for i in range(arms)]

    def build(seed: int) -> PolicyLike:
        return make_policy(name, names, seed=seed, **params)

    return build


def _contenders(families: int, arms: int, strengths: Sequence[float]) -> dict[str, Build]:
    contenders = {"thompson (one for all families)": _builder("thompson", arms)}
    for name, from_zero in FROM_ZERO.items():
        contenders[from_zero] = _builder(from_zero, arms, context_dim=families)
        for strength in strengths:
            contenders[f"{name} m={strength:g}"] = _builder(
                name, arms, context_dim=families, prior_strength=strength
            )
    return contenders


def interval(values: np.ndarray, value_range: ValueRange | None = None) -> str:
    """Mean and 95% t interval over seeds, cut to `value_range` (`ValueRange.interval` says why).

    >>> interval(np.array([0.0, 0.0, 9.0]), ValueRange(0.0, None))
    '3.0 [0.0, 15.9]'
    """
    mean = float(values.mean())
    half = float(stats.t.ppf(0.975, values.size - 1) * values.std(ddof=1) / np.sqrt(values.size))
    low, high = (value_range or ValueRange()).interval(mean - half, mean + half)
    return f"{mean:.1f} [{low:.1f}, {high:.1f}]"


def regrets(
    world: str, *, seeds: int, families: int, queries: int, arms: int, strengths: Sequence[float]
) -> dict[str, np.ndarray]:
    """Contender -> its regret in each seed (the same worlds and draws for every contender)."""
    contenders = _contenders(families, arms, strengths)
    out = {label: np.zeros(seeds) for label in contenders}
    for seed in range(seeds):
        rng = np.random.default_rng([seed, WORLDS.index(world)])
        means = family_means(world, families, arms, rng)
        order = rng.permutation(np.repeat(np.arange(families), queries))
        uniforms = rng.random((order.size, arms))
        for label, build in contenders.items():
            out[label][seed] = run_stream(build(seed), means, order, uniforms)
    return out


def pooling_table(
    *,
    seeds: int = 30,
    families: int = 20,
    queries: int = 10,
    arms: int = 6,
    strengths: Sequence[float] = (1.0, 2.0, 4.0, 8.0, 16.0),
    worlds: Sequence[str] = WORLDS,
) -> str:
    """The markdown table: every contender's regret in every world, and its paired difference."""
    lines = [
        "| world | policy | regret (95% CI) | vs the same rule from zero (95% CI) |",
        "|---|---|---|---|",
    ]
    for world in worlds:
        found = regrets(
            world, seeds=seeds, families=families, queries=queries, arms=arms, strengths=strengths
        )
        for label, values in found.items():
            rule = label.split(" ")[0]
            # A regret is a sum of gaps, never below 0; a difference of two can be either sign.
            paired = interval(values - found[FROM_ZERO[rule]]) if rule in FROM_ZERO else ""
            lines.append(f"| {world} | {label} | {interval(values, ValueRange(0.0))} | {paired} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    """Print the table for the command line's sizes."""
    summary = (__doc__ or "").split("\n\n", 2)
    parser = argparse.ArgumentParser(
        prog="python -m experiments.pooling", description="\n\n".join(summary[:2])
    )
    parser.add_argument("--seeds", type=int, default=30, help="runs per world (default 30)")
    parser.add_argument("--families", type=int, default=20, help="query families (default 20)")
    parser.add_argument("--queries", type=int, default=10, help="queries per family (10)")
    parser.add_argument("--arms", type=int, default=6, help="arms (default 6)")
    args = parser.parse_args(argv)
    if min(args.seeds, args.families, args.queries, args.arms) < 2:
        parser.error("every size must be at least 2")
    print(
        pooling_table(
            seeds=args.seeds, families=args.families, queries=args.queries, arms=args.arms
        )
    )


if __name__ == "__main__":
    main()
