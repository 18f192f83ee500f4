"""Simulator experiments: policies, baselines and MABWiser peers on one bandit workload each.

Every contender meets the same environments (one per seed, drawn up front), so their regret
curves differ only by what they chose. Contenders are named as on the command line: a learning
core policy (`thompson`), the `random` floor, or a peer key of the benchmark (`numpy-ts`,
`mabwiser:thompson`, `mabwiser:linucb`, ...).
"""

from collections.abc import Mapping
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from engine.adapters.tracking import metric_key
from engine.errors import ConfigError
from experiments.baselines import UniformRandomPolicy
from experiments.benchmarks.contenders import build_contender
from experiments.benchmarks.environments import Workload
from experiments.benchmarks.harness import arm_names, play, summarise
from experiments.benchmarks.peers import BanditPolicy, ContextBlind
from experiments.environments import experiment_workloads
from experiments.experiment import (
    Curve,
    Experiment,
    ExperimentContext,
    ExperimentResult,
    FigureSpec,
    sampled_steps,
)
from experiments.plots import ValueRange
from experiments.policies import build_policy, fitting_policies, takes_context

__all__ = ["BanditParams", "bandit_experiments"]

# Regret here sums each step's gap to the best arm's expectation, never below 0; its top (step
# times the largest gap) differs per environment, so only 0 is a bound. Its figure's band and its
# reported interval are both cut to it.
REGRET_RANGE = ValueRange(0.0, None)
PEER_KEYS = ("numpy-ts", "numpy-ts-per-context", "mabwiser:thompson", "mabwiser:ucb1")
CONTEXTUAL_PEER_KEYS = ("numpy-ts-per-context", "mabwiser:linucb", "mabwiser:lints")


class BanditParams(BaseModel):
    """Parameters of a simulator experiment."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    policies: tuple[str, ...] = Field(min_length=1)
    peers: tuple[str, ...] = ()
    seeds: int = Field(20, ge=1, le=1000)
    horizon: int = Field(10_000, ge=2, le=1_000_000)
    first_seed: int = Field(0, ge=0)


def _build(name: str, workload: Workload, seed: int) -> BanditPolicy:
    arms = arm_names(workload.n_arms)
    if name == "random":
        return UniformRandomPolicy(arms, seed=seed)
    if ":" in name or name.startswith("numpy-"):
        return build_contender(name, arms, workload.context_dim, seed)
    policy = build_policy(name, arms, seed, workload.context_dim)
    # The harness shows every context it has; a context-free policy must not be handed one.
    return policy if takes_context(name, workload.context_dim) else ContextBlind(policy)


def _default_policies(context_dim: int | None) -> tuple[str, ...]:
    fitting = fitting_policies(context_dim)
    # In a contextual world, context-free Thompson sampling shows what the context is worth.
    return (*fitting, *(["thompson"] if context_dim is not None else []), "random")


def _run(workload: Workload, params: BanditParams, context: ExperimentContext) -> ExperimentResult:
    names = [*params.policies, *params.peers]
    steps = sampled_steps(params.horizon)
    regret = {name: np.empty((params.seeds, steps.size)) for name in names}
    reward = {name: np.empty((params.seeds, steps.size)) for name in names}
    oracle = np.empty((params.seeds, steps.size))
    advance = context.progress(params.seeds * len(names), workload.key)
    for row, seed in enumerate(range(params.first_seed, params.first_seed + params.seeds)):
        environment = workload.build(params.horizon, seed)
        rows = np.arange(environment.horizon)
        oracle[row] = np.cumsum(environment.step_means.max(axis=1))[steps - 1]
        for name in names:
            chosen = play(_build(name, workload, seed), environment)
            gaps = environment.step_means.max(axis=1) - environment.step_means[rows, chosen]
            regret[name][row] = np.cumsum(gaps)[steps - 1]
            reward[name][row] = np.cumsum(environment.rewards[rows, chosen])[steps - 1]
            advance(1)
    curves = [
        _curve(name, workload, params=params, steps=steps, regret=regret[name], reward=reward[name])
        for name in names
    ]
    return _result(workload, params, curves, steps, oracle)


def _curve(
    name: str,
    workload: Workload,
    *,
    params: BanditParams,
    steps: np.ndarray,
    regret: np.ndarray,
    reward: np.ndarray,
) -> Curve:
    summary = summarise(regret[:, -1].tolist()) if params.seeds > 1 else None
    final_regret = float(regret[:, -1].mean())
    low, high = REGRET_RANGE.interval(summary.low, summary.high) if summary else (final_regret,) * 2
    return Curve(
        label=name,
        params={
            "policy": name,
            "environment": workload.key,
            "seeds": str(params.seeds),
            "first_seed": str(params.first_seed),
            "horizon": str(params.horizon),
        },
        steps=steps,
        series={"cumulative_regret": regret, "cumulative_reward": reward},
        final={
            "regret": final_regret,
            "regret_ci_low": low,
            "regret_ci_high": high,
            "mean_reward": float(reward[:, -1].mean() / params.horizon),
        },
    )


def _result(
    workload: Workload,
    params: BanditParams,
    curves: list[Curve],
    steps: np.ndarray,
    oracle: np.ndarray,
) -> ExperimentResult:
    ranked = sorted(curves, key=lambda curve: curve.final["regret"])
    best = ranked[0]
    lines = [
        f"## {workload.title}",
        "",
        f"{params.seeds} seeds, horizon {params.horizon}; regret mean with 95% interval.",
        "",
        "| rank | contender | regret | 95% interval | reward per step | regret - best |",
        "| ---: | --- | ---: | --- | ---: | ---: |",
    ]
    csv = ["contender,regret,regret_ci_low,regret_ci_high,mean_reward"]
    for rank, curve in enumerate(ranked, start=1):
        f = curve.final
        lines.append(
            f"| {rank} | {curve.label} | {f['regret']:.1f} | [{f['regret_ci_low']:.1f}, "
            f"{f['regret_ci_high']:.1f}] | {f['mean_reward']:.4f} | "
            f"{f['regret'] - best.final['regret']:+.1f} |"
        )
        csv.append(
            f"{curve.label},{f['regret']:.6g},{f['regret_ci_low']:.6g},"
            f"{f['regret_ci_high']:.6g},{f['mean_reward']:.6g}"
        )
    metrics: dict[str, float] = {}
    for curve in curves:
        metrics[metric_key("regret", curve.label)] = curve.final["regret"]
        metrics[metric_key("mean_reward", curve.label)] = curve.final["mean_reward"]
    oracle_line = {"oracle (expected)": (steps, oracle.mean(axis=0))}
    return ExperimentResult(
        curves=curves,
        metrics=metrics,
        tables={"results.md": "\n".join(lines) + "\n", "results.csv": "\n".join(csv) + "\n"},
        figures=[
            FigureSpec(
                "plots/regret.png",
                workload.title,
                "cumulative_regret",
                "cumulative regret",
                value_range=REGRET_RANGE,
            ),
            FigureSpec(
                "plots/reward.png",
                workload.title,
                "cumulative_reward",
                "cumulative reward",
                references=oracle_line,
                value_range=ValueRange(0.0, 1.0, per_step=True),  # rewards lie in [0, 1]
            ),
        ],
        tags={"winner": best.label, "environment": workload.key},
    )


def _validator(workload: Workload) -> Any:
    def validate(params: BanditParams) -> None:
        """Build every contender once, so a bad name or a misfit fails before any work."""
        names = [*params.policies, *params.peers]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise ConfigError(f"contenders listed twice: {duplicates}")
        for name in names:
            _build(name, workload, seed=0)

    return validate


def _experiment(key: str, name: str, peers: tuple[str, ...]) -> Experiment:
    workload = experiment_workloads()[key]

    def defaults() -> Mapping[str, Any]:
        return {"policies": _default_policies(workload.context_dim), "peers": peers}

    return Experiment(
        name=name,
        summary=workload.title,
        params_model=BanditParams,
        defaults=defaults,
        quick={"seeds": 3, "horizon": 500},
        execute=lambda params, context: _run(workload, params, context),
        validate=_validator(workload),
        step="one decision of each policy",
    )


def bandit_experiments() -> dict[str, Experiment]:
    """The simulator experiments, by name."""
    experiments = [
        _experiment("stationary", "stationary-bernoulli", ("numpy-ts", "mabwiser:thompson")),
        _experiment("hard", "stationary-hard", ("numpy-ts",)),
        _experiment("gaussian", "stationary-gaussian", ("mabwiser:thompson",)),
        _experiment("drift", "drift-abrupt", ("numpy-ts", "mabwiser:thompson")),
        _experiment("drift-gradual", "drift-gradual", ("mabwiser:thompson",)),
        _experiment("contextual", "contextual", ("numpy-ts-per-context", "mabwiser:linucb")),
    ]
    return {experiment.name: experiment for experiment in experiments}
