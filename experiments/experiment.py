"""What an experiment is: validated parameters in, curves, metrics, tables and figures out.

An experiment's `execute` does the work and returns an `ExperimentResult`; it never talks to
MLflow. The runner (`experiments.runner`) validates the parameters, opens the runs, and logs what
comes back, so every experiment is tracked the same way and can be tested without a store.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel

from engine.domain.ports import LLM
from experiments.plots import Band, ValueRange

__all__ = [
    "Curve",
    "Experiment",
    "ExperimentContext",
    "ExperimentResult",
    "FigureSpec",
    "sampled_steps",
]

ProgressFactory = Callable[[int, str], Callable[[int], None]]
"""(total, description) -> a callback advanced by n finished units (a progress bar)."""


def _ignore(done: int) -> None:
    """A progress callback that shows nothing."""


def _no_progress(total: int, description: str) -> Callable[[int], None]:  # noqa: ARG001
    return _ignore


def _nothing_more(params: Any) -> None:
    """The default extra validation: none beyond the parameter model's own."""


@dataclass(frozen=True)
class ExperimentContext:
    """What an experiment may use from outside: the data directory, progress bars, an LLM."""

    data_dir: Path
    progress: ProgressFactory = _no_progress
    llm_factory: Callable[[str], LLM] | None = None  # model string -> LLM, for replay builds


def sampled_steps(horizon: int, points: int = 200) -> np.ndarray:
    """About `points` 1-based steps from 1 to `horizon`, evenly spaced, always ending at it."""
    return np.unique(np.linspace(1, horizon, num=min(points, horizon)).round().astype(np.int64))


@dataclass(frozen=True)
class Curve:
    """One contender's run: per-run values of each metric at sampled steps, and final metrics.

    The runner logs each contender as a child run: `params`, the mean of each series at each
    step (so MLflow's compare view overlays contenders), and `final`. A series and a final
    metric never share a name: MLflow keeps one history per name, so the final value, logged at
    step 0, would have become the first point of the curve (the online evaluation's `accuracy`
    started at its overall value, the OPE's `coverage` at its final share).

    >>> Curve("a", {}, np.array([1, 2]), {"accuracy": np.ones((1, 2))}, {"accuracy": 1.0})
    Traceback (most recent call last):
    ...
    ValueError: curve 'a': ['accuracy'] named both a series and a final metric
    """

    label: str
    params: Mapping[str, str]
    steps: np.ndarray  # (P,) 1-based
    series: Mapping[str, np.ndarray]  # metric -> (runs, P)
    final: Mapping[str, float]

    def __post_init__(self) -> None:
        shared = sorted(set(self.series) & set(self.final))
        if shared:
            named = f"{shared} named both a series and a final metric"
            raise ValueError(f"curve {self.label!r}: {named}")
        if self.steps.size and int(self.steps.min()) < 1:
            raise ValueError(f"curve {self.label!r}: steps are 1-based (step 0 holds no curve)")

    def band(self, metric: str) -> Band:
        """Mean and 95% interval (normal approximation over runs) of `metric` at each step."""
        values = self.series[metric]
        mean = values.mean(axis=0)
        half = (
            1.96 * values.std(axis=0, ddof=1) / np.sqrt(values.shape[0])
            if values.shape[0] > 1
            else np.zeros_like(mean)
        )
        return Band(self.label, self.steps, mean, mean - half, mean + half)


@dataclass(frozen=True)
class FigureSpec:
    """A plot the runner draws from the curves: one metric for every contender, plus references."""

    artifact_file: str  # e.g. "plots/regret.png"
    title: str
    metric: str
    ylabel: str
    references: Mapping[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    # The values the metric can take: its band is drawn inside them (`plots.Band.clipped`).
    value_range: ValueRange | None = None


@dataclass(frozen=True)
class ExperimentResult:
    """Everything an experiment found, ready to log."""

    curves: Sequence[Curve]
    metrics: Mapping[str, float]  # the parent run's summary metrics
    tables: Mapping[str, str]  # artifact file -> text (Markdown or CSV)
    figures: Sequence[FigureSpec] = ()
    tags: Mapping[str, str] = field(default_factory=dict)  # e.g. the winner


@dataclass(frozen=True)
class Experiment:
    """A named experiment: its parameters (defaults = full scale), its quick scale, its work.

    `defaults` is a function because some defaults (the policies to compare) depend on what the
    learning core has registered at run time.
    """

    name: str
    summary: str
    params_model: type[BaseModel]
    defaults: Callable[[], Mapping[str, Any]]
    quick: Mapping[str, Any]  # overrides for a small, fast run
    execute: Callable[[Any, ExperimentContext], ExperimentResult]
    validate: Callable[[Any], None] = _nothing_more  # checks beyond the model's fields
    # What one step of the curves is: MLflow names every chart's x axis "Step" and offers no
    # label of its own, so each run says it in its `step` parameter and the parent's description.
    step: str = "one step"
