"""Validate the off-policy estimators on simulated logs whose true value is known.

Each scenario is a random contextual world with an off-target logging policy; the target
policy's exact value is known, so each estimator's bias, error and interval coverage are measured,
not assumed. A 95% interval should cover the truth in about 95% of scenarios.
"""

from collections.abc import Mapping
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from experiments.experiment import (
    Curve,
    Experiment,
    ExperimentContext,
    ExperimentResult,
    FigureSpec,
)
from experiments.ope import Estimate, doubly_robust, ips, snips, tabular_reward_model
from experiments.ope_logs import random_scenario
from experiments.plots import ValueRange

__all__ = ["OPEParams", "ope_experiment"]

ESTIMATORS = ("ips", "snips", "doubly_robust")


class OPEParams(BaseModel):
    """Parameters of the off-policy evaluation check."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    scenarios: int = Field(200, ge=2, le=100_000)
    decisions: int = Field(2_000, ge=10, le=10_000_000)
    contexts: int = Field(4, ge=1, le=100)
    arms: int = Field(5, ge=2, le=100)
    exploration: float = Field(0.2, gt=0.0, le=1.0)
    confidence: float = Field(0.95, gt=0.0, lt=1.0)
    seed: int = Field(0, ge=0)


def _estimates(params: OPEParams, scenario_seed: int) -> tuple[float, list[Estimate]]:
    rng = np.random.default_rng([params.seed, scenario_seed])
    scenario = random_scenario(rng, params.contexts, params.arms, params.exploration)
    logs, target = scenario.draw(params.decisions, rng)
    model = tabular_reward_model(logs, seed=scenario_seed)
    return scenario.true_value, [
        ips(logs, target, params.confidence),
        snips(logs, target, params.confidence),
        doubly_robust(logs, target, model, params.confidence),
    ]


def _run(params: OPEParams, context: ExperimentContext) -> ExperimentResult:
    errors = np.empty((len(ESTIMATORS), params.scenarios))
    covered = np.empty((len(ESTIMATORS), params.scenarios))
    widths = np.empty((len(ESTIMATORS), params.scenarios))
    advance = context.progress(params.scenarios, "ope scenarios")
    for column in range(params.scenarios):
        truth, estimates = _estimates(params, column)
        for row, estimate in enumerate(estimates):
            errors[row, column] = estimate.value - truth
            covered[row, column] = estimate.covers(truth)
            widths[row, column] = estimate.high - estimate.low
        advance(1)
    steps = np.arange(1, params.scenarios + 1)
    curves, lines, metrics = [], [], {}
    lines += [
        f"## Off-policy estimators on {params.scenarios} simulated logs",
        "",
        f"{params.decisions} logged decisions each; {params.contexts} contexts x {params.arms} "
        f"arms; nominal coverage {params.confidence:.0%}.",
        "",
        "| estimator | coverage | bias | RMSE | mean interval width |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for row, name in enumerate(ESTIMATORS):
        final = {
            "coverage": float(covered[row].mean()),
            "bias": float(errors[row].mean()),
            "rmse": float(np.sqrt(np.square(errors[row]).mean())),
            "interval_width": float(widths[row].mean()),
        }
        running = np.cumsum(covered[row]) / steps
        curves.append(
            Curve(
                name,
                {"estimator": name, "scenarios": str(params.scenarios)},
                steps,
                {"coverage_so_far": running[None, :], "abs_error": np.abs(errors[row])[None, :]},
                final,
            )
        )
        metrics.update({f"{key}.{name}": value for key, value in final.items()})
        lines.append(
            f"| {name} | {final['coverage']:.3f} | {final['bias']:+.4f} | {final['rmse']:.4f} | "
            f"{final['interval_width']:.4f} |"
        )
    nominal = {"nominal": (steps, np.full(steps.size, params.confidence))}
    return ExperimentResult(
        curves=curves,
        metrics=metrics,
        tables={"results.md": "\n".join(lines) + "\n"},
        figures=[
            FigureSpec(
                "plots/coverage.png",
                "Interval coverage of the true value",
                "coverage_so_far",
                "running coverage",
                references=nominal,
                value_range=ValueRange(0.0, 1.0),  # a share of intervals
            )
        ],
    )


def ope_experiment() -> Experiment:
    """The off-policy evaluation check as an experiment."""

    def defaults() -> Mapping[str, Any]:
        return {}

    return Experiment(
        name="ope",
        summary="IPS, self-normalised IPS and doubly robust on simulated logs of known value",
        params_model=OPEParams,
        defaults=defaults,
        quick={"scenarios": 20, "decisions": 500},
        execute=_run,
        step="one simulated log",
    )
