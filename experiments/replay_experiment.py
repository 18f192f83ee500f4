"""The replay experiment: which strategy wins on which task family, and does the engine learn it?

The outcome matrix (every built-in template on a generated task suite, with a real model) is
built once and cached under the data directory; bandit policies are then replayed over it. Each
policy is reported against three fixed references computed exactly from the matrix: uniform
random, the best single template, and the per-family oracle (the best template for each family).
The target: a contextual policy, seeing the engine's query features, settles at least 8 points
above the best single template and at 95% or more of the per-family oracle.
"""

from collections.abc import Mapping
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from engine.adapters.tracking import metric_key
from engine.errors import ConfigError
from experiments.baselines import UniformRandomPolicy
from experiments.experiment import (
    Curve,
    Experiment,
    ExperimentContext,
    ExperimentResult,
    FigureSpec,
    sampled_steps,
)
from experiments.plots import ValueRange
from experiments.policies import build_policy, fitting_policies
from experiments.replay import (
    OutcomeMatrix,
    cached_outcome_matrix,
    check_task,
    chosen_templates,
)
from experiments.replay_report import replay_tables
from experiments.replay_runs import ReplayPolicy, ReplayResult, family_contexts, replay
from experiments.tasks import generate_suite

__all__ = ["ReplayParams", "replay_experiment"]

TARGET_LIFT_POINTS = 8.0
TARGET_ORACLE_SHARE = 0.95


class ReplayParams(BaseModel):
    """Parameters of the replay experiment."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str = "local/smollm2"
    templates: tuple[str, ...] = ()  # template ids; empty = every built-in template
    families: tuple[str, ...] = ()  # task families; empty = all
    per_family: int = Field(10, ge=1, le=1000)
    suite_seed: int = Field(0, ge=0)
    max_tokens: int = Field(96, ge=4, le=4096)
    policies: tuple[str, ...] = Field(min_length=1)
    runs: int = Field(1000, ge=1, le=1_000_000)
    steps: int = Field(300, ge=2, le=1_000_000)
    context: Literal["features", "family"] = "features"


def _contexts(matrix: OutcomeMatrix, source: str) -> np.ndarray:
    if source == "family":
        return family_contexts(matrix.families)
    from experiments.regex_families import query_features  # noqa: PLC0415

    return np.array([query_features(task.query) for task in matrix.tasks])


def _factory(name: str, arms: list[str], context_dim: int) -> Any:
    if name == "random":
        return lambda seed: UniformRandomPolicy(arms, seed=seed)
    return lambda seed: build_policy(name, arms, seed, context_dim)


def _validate(params: ReplayParams) -> None:
    strategies = chosen_templates(params.templates)
    generate_suite(params.suite_seed, params.per_family, params.families or None)
    arms = [strategy.id for strategy in strategies]
    for name in params.policies:
        policy: ReplayPolicy = _factory(name, arms, context_dim=2)(0)
        del policy


def _matrix(params: ReplayParams, context: ExperimentContext) -> OutcomeMatrix:
    strategies = chosen_templates(params.templates)
    suite = generate_suite(params.suite_seed, params.per_family, params.families or None)
    factory = context.llm_factory

    def build_llm() -> Any:
        if factory is None:
            raise ConfigError(
                f"no outcome matrix is cached for {params.model!r} and no model can be loaded"
            )
        return factory(params.model)

    advance = context.progress(len(strategies) * len(suite.tasks), f"asking {params.model}")
    last = [0]

    def progress(done: int, total: int) -> None:  # noqa: ARG001 - the bar knows the total
        advance(done - last[0])
        last[0] = done

    matrix, _, _ = cached_outcome_matrix(
        context.data_dir / "replay",
        build_llm,
        params.model,
        strategies,
        suite,
        scorer=check_task,
        max_tokens=params.max_tokens,
        progress=progress,
    )
    return matrix


def _curve(result: ReplayResult, params: ReplayParams, oracle: float) -> Curve:
    steps = sampled_steps(params.steps)
    cumulative = np.cumsum(result.rewards, axis=1)[:, steps - 1]
    return Curve(
        label=result.label,
        params={
            "policy": result.label,
            "environment": f"replay:{params.model}",
            "runs": str(params.runs),
            "steps": str(params.steps),
            "context": params.context,
        },
        steps=steps,
        series={
            "cumulative_reward": cumulative,
            "cumulative_regret_vs_oracle": oracle * steps[None, :] - cumulative,
        },
        final={"mean_reward": result.mean_reward, "settled_reward": result.settled_reward},
    )


def _run(params: ReplayParams, context: ExperimentContext) -> ExperimentResult:
    matrix = _matrix(params, context)
    baselines = matrix.baselines()
    contexts = _contexts(matrix, params.context)
    arms = list(matrix.strategies)
    results = []
    for name in params.policies:
        advance = context.progress(params.runs, f"replaying {name}")
        make = _factory(name, arms, context_dim=contexts.shape[1])
        results.append(
            replay(
                matrix,
                make,
                name,
                runs=params.runs,
                steps=params.steps,
                contexts=contexts,
                progress=advance,
            )
        )
    curves = [_curve(result, params, baselines.family_oracle) for result in results]
    metrics = {
        "baseline.uniform": baselines.uniform,
        "baseline.best_fixed": baselines.best_fixed,
        "baseline.family_oracle": baselines.family_oracle,
        "matrix.faults": float(matrix.faults),
    }
    for result in results:
        metrics[metric_key("settled_reward", result.label)] = result.settled_reward
        metrics[metric_key("lift_points", result.label)] = 100 * (
            result.settled_reward - baselines.best_fixed
        )
        metrics[metric_key("oracle_share", result.label)] = result.settled_reward / max(
            baselines.family_oracle, 1e-12
        )
    best = max(results, key=lambda result: result.settled_reward)
    lift = 100 * (best.settled_reward - baselines.best_fixed)
    share = best.settled_reward / max(baselines.family_oracle, 1e-12)
    steps = sampled_steps(params.steps)
    references = {
        "uniform random": (steps, baselines.uniform * steps),
        f"best single ({baselines.best_fixed_strategy})": (steps, baselines.best_fixed * steps),
        "per-family oracle": (steps, baselines.family_oracle * steps),
    }
    return ExperimentResult(
        curves=curves,
        metrics=metrics,
        tables={**replay_tables(matrix, results), "outcome_matrix.json": matrix.to_json()},
        figures=[
            FigureSpec(
                "plots/reward.png",
                f"Replay on {params.model}",
                "cumulative_reward",
                "cumulative reward (correct answers)",
                references=references,
                value_range=ValueRange(0.0, 1.0, per_step=True),  # one 0/1 answer per step
            ),
            FigureSpec(
                "plots/regret.png",
                f"Replay on {params.model}: regret against the per-family oracle",
                "cumulative_regret_vs_oracle",
                "cumulative regret vs per-family oracle",
            ),
        ],
        tags={
            "winner": best.label,
            "best_fixed_strategy": baselines.best_fixed_strategy,
            "target_met": str(lift >= TARGET_LIFT_POINTS and share >= TARGET_ORACLE_SHARE).lower(),
        },
    )


def _default_policies() -> tuple[str, ...]:
    # Every contextual policy (a context_dim of 2 only asks which ones read a context), and
    # context-free Thompson sampling to show what the context is worth.
    return ("thompson", *fitting_policies(context_dim=2), "random")


def replay_experiment() -> Experiment:
    """The replay experiment."""

    def defaults() -> Mapping[str, Any]:
        return {"policies": _default_policies()}

    return Experiment(
        name="replay",
        summary="every template on a generated task suite with a real model, bandits replayed",
        params_model=ReplayParams,
        defaults=defaults,
        quick={"per_family": 2, "runs": 50, "steps": 100, "max_tokens": 48},
        execute=_run,
        validate=_validate,
        step="one task of the replayed stream",
    )
