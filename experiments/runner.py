"""Run an experiment into MLflow: one parent run, one child run per contender, plots and tables.

Each contender's child run holds its own parameters, its final metrics and its metrics over
time (the mean over seeds or replay runs at each sampled step), so MLflow's chart view overlays
the contenders, one line each in its own colour; each figure's reference lines (an oracle, a
nominal coverage) are child runs too (`reference_series`), so they are drawn in the same chart
as the curves they measure, named in the legend. Every run's `step` parameter says what a step
is (MLflow names every x axis "Step").

The parent run holds the parameters, the result tables, the plots and one comparison figure of
the per-contender summary metrics (a panel per metric, a bar per contender: MLflow would draw 24
lone one-bar charts for 24 scalars). It logs no metric of its own: its charts were five curves
(the best and the worst contender at each step, the references) drawn alone, one line each,
beside the contenders' charts that hold the same lines. The metrics of no contender (replay's
baselines, the online cache's hits) are tags `thinkpath.<name>`, the number of contenders is a
parameter, and tags `thinkpath.best.<metric>` name who was best. Its description is
`results.md` (and where the curves are: `chart_note`), so the run opens on the summary.

Every run carries its colour in MLflow's run-colour tag, from the one table of
`experiments.plots.colours_for`: a contender has the colour of its curve in the PNG figures, and
no two runs of an invocation share one. Children are logged worst first with the references
(baselines, peers, reference lines) last: MLflow lists the newest runs first and its chart
view, unless told otherwise (`experiments.mlflow_ui` tells it to show every run), shows only the
first ten rows, so the references and the best contenders are the ones shown. A run that
raises, or is interrupted with Ctrl-C, is marked FAILED on its way out.
"""

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import BaseModel

from engine.adapters.tracking import (
    RUN_COLOUR_TAG,
    ActiveRun,
    TrackingStore,
    metric_key,
    params_of,
)
from experiments.experiment import Curve, Experiment, ExperimentContext, ExperimentResult
from experiments.plots import colours_for, comparison_figure, curves_figure, is_reference

__all__ = [
    "RunOutcome",
    "leaders",
    "lower_is_better",
    "mlflow_experiment_name",
    "reference_series",
    "run_experiment",
    "split_summary",
]

STEP_PARAM = "step"  # every run's parameter that says what a step of its curves is
# Words that make a metric one where a smaller value wins (everything else: larger is better).
_LOWER_IS_BETTER = frozenset({"regret", "error", "rmse", "loss"})
_TOWARD_ZERO = ("bias",)


@dataclass(frozen=True)
class RunOutcome:
    """Where an experiment's results went, and the results themselves."""

    run_id: str
    experiment_name: str  # the MLflow experiment
    result: ExperimentResult


def mlflow_experiment_name(experiment: Experiment) -> str:
    """The MLflow experiment that holds every run of `experiment`."""
    return f"thinkpath-{experiment.name}"


def run_experiment(
    experiment: Experiment,
    params: BaseModel,
    store: TrackingStore,
    context: ExperimentContext,
    *,
    quick: bool = False,
) -> RunOutcome:
    """Execute `experiment` with already validated `params` and log everything to `store`."""
    name = mlflow_experiment_name(experiment)
    logged: dict[str, Any] = {"experiment": experiment.name, "quick": quick}
    logged.update(params.model_dump())
    logged[STEP_PARAM] = experiment.step
    tags = {"thinkpath.experiment": experiment.name, "thinkpath.quick": str(quick).lower()}
    run_name = f"{experiment.name}-quick" if quick else experiment.name
    with store.start_run(name, run_name, params=params_of(logged), tags=tags) as parent:
        result = experiment.execute(params, context)
        _log_result(store, name, (run_name, parent), result, experiment.step)
    return RunOutcome(run_id=parent.run_id, experiment_name=name, result=result)


def _log_result(
    store: TrackingStore,
    name: str,
    named_parent: tuple[str, ActiveRun],
    result: ExperimentResult,
    step: str,
) -> None:
    run_name, parent = named_parent
    labels = [curve.label for curve in result.curves]
    references = reference_series(result)
    colours = colours_for([*labels, *references, run_name])
    for curve in _logging_order(result.curves, result.metrics):
        tags = {RUN_COLOUR_TAG: colours[curve.label]}
        params = {**curve.params, STEP_PARAM: step}
        with store.start_run(name, curve.label, params, tags, parent=parent) as child:
            child.log_series(
                {
                    metric: (curve.steps.tolist(), values.mean(axis=0).tolist())
                    for metric, values in curve.series.items()
                }
            )
            child.log_metrics(curve.final)
    for label, series in references.items():
        tags = {RUN_COLOUR_TAG: colours[label]}
        params = {"reference": label, STEP_PARAM: step}
        with store.start_run(name, label, params, tags, parent=parent) as child:
            child.log_series(series)
    per_contender, overall = split_summary(result.metrics, labels)
    lower = [metric for metric in per_contender if lower_is_better(metric)]
    zero = [metric for metric in per_contender if metric.startswith(_TOWARD_ZERO)]
    parent.log_params({"contenders": len(labels)})
    parent.set_tags(
        {
            RUN_COLOUR_TAG: colours[run_name],
            **leaders(per_contender, lower, zero),
            **{metric_key("thinkpath", key): f"{value:.6g}" for key, value in overall.items()},
        }
    )
    if per_contender:
        parent.log_figure(
            comparison_figure(f"{name}: summary by contender", per_contender, lower, zero),
            "plots/comparison.png",
        )
        parent.log_text(_summary_csv(per_contender), "summary.csv")
    summary = result.tables.get("results.md")
    # MLflow shows the `mlflow.note.content` tag as the run's description.
    note = {"mlflow.note.content": summary + chart_note(step)} if summary else {}
    parent.set_tags({**result.tags, **note})
    for artifact_file, text in result.tables.items():
        parent.log_text(text, artifact_file)
    for spec in result.figures:
        bands = [curve.band(spec.metric) for curve in result.curves if spec.metric in curve.series]
        figure = curves_figure(
            spec.title, spec.ylabel, bands, spec.references, value_range=spec.value_range
        )
        parent.log_figure(figure, spec.artifact_file)


def chart_note(step: str) -> str:
    """The description's last words: where the contenders' curves are, and what a step is.

    >>> chart_note("one decision").strip().endswith("A chart's Step is one decision.")
    True
    """
    return (
        "\nCurves: each contender is a child run of this one, in its own colour; the experiment's"
        f" chart view overlays them. A chart's Step is {step}.\n"
    )


def lower_is_better(metric: str) -> bool:
    """Whether a smaller value of `metric` wins: its name has a word such as regret or error.

    >>> [lower_is_better(name) for name in ("cumulative_regret", "abs_error", "accuracy")]
    [True, True, False]
    """
    return not _LOWER_IS_BETTER.isdisjoint(re.split(r"[._]", metric))


def reference_series(
    result: ExperimentResult,
) -> dict[str, dict[str, tuple[list[int], list[float]]]]:
    """Each figure's reference lines by label: label -> {metric: (steps, values)}.

    A reference is logged as a run of its own under the figure's metric, so MLflow draws it in
    the chart of the contenders' curves it measures, under its label.

    >>> from experiments.experiment import FigureSpec
    >>> line = (np.array([1, 2]), np.array([0.9, 1.8]))
    >>> spec = FigureSpec("r.png", "t", "cumulative_reward", "reward", {"oracle (expected)": line})
    >>> reference_series(ExperimentResult([], {}, {}, figures=[spec]))
    {'oracle (expected)': {'cumulative_reward': ([1, 2], [0.9, 1.8])}}
    """
    series: dict[str, dict[str, tuple[list[int], list[float]]]] = {}
    for spec in result.figures:
        for label, (steps, values) in spec.references.items():
            series.setdefault(label, {})[spec.metric] = (
                np.asarray(steps).astype(int).tolist(),
                np.asarray(values, dtype=float).tolist(),
            )
    return series


def split_summary(
    metrics: Mapping[str, float], labels: Sequence[str]
) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    """Split summary metrics into {metric: {contender: value}} and the metrics of no contender.

    A key is a contender's when it is `metric_key(metric, label)` for one of `labels`.

    >>> split_summary({"regret.a": 3.0, "regret.b": 1.0, "best": 2.0}, ["a", "b"])
    ({'regret': {'a': 3.0, 'b': 1.0}}, {'best': 2.0})
    """
    suffixes = {"." + metric_key(label): label for label in labels}
    per_contender: dict[str, dict[str, float]] = {}
    overall: dict[str, float] = {}
    for key, value in metrics.items():
        match = next((s for s in suffixes if key.endswith(s) and len(key) > len(s)), None)
        if match is None:
            overall[key] = value
        else:
            per_contender.setdefault(key[: -len(match)], {})[suffixes[match]] = value
    return per_contender, overall


def leaders(
    per_contender: Mapping[str, Mapping[str, float]],
    lower_is_better: Sequence[str] = (),
    toward_zero: Sequence[str] = (),
) -> dict[str, str]:
    """Tags naming the best contender of each summary metric: `thinkpath.best.<metric>`.

    The values themselves stay on the children, in `summary.csv` and the comparison figure: a
    scalar on the parent would chart as a lone bar.

    >>> leaders({"regret": {"a": 3.0, "b": 1.0}}, lower_is_better=["regret"])
    {'thinkpath.best.regret': 'b'}
    """
    tags: dict[str, str] = {}
    for metric, values in per_contender.items():
        if not values:
            continue
        if metric in toward_zero:
            best = min(values, key=lambda label: abs(values[label]))
        elif metric in lower_is_better:
            best = min(values, key=values.__getitem__)
        else:
            best = max(values, key=values.__getitem__)
        tags[metric_key("thinkpath", "best", metric)] = best
    return tags


def _logging_order(curves: Sequence[Curve], metrics: Mapping[str, float]) -> list[Curve]:
    """Contenders worst first (by the first summary metric), then the references (baselines and
    peers), so that MLflow, newest first, lists the references and then the best contenders."""
    per_contender, _ = split_summary(metrics, [curve.label for curve in curves])
    values: Mapping[str, float] = {}
    sign = 1.0
    if per_contender:
        metric, values = next(iter(per_contender.items()))
        sign = -1.0 if lower_is_better(metric) else 1.0
    return sorted(
        curves,
        key=lambda curve: (is_reference(curve.label), sign * values.get(curve.label, -np.inf)),
    )


def _summary_csv(per_contender: Mapping[str, Mapping[str, float]]) -> str:
    metrics = list(per_contender)
    labels = sorted({label for values in per_contender.values() for label in values})
    rows = ["contender," + ",".join(metrics)]
    for label in labels:
        rows.append(
            label
            + ","
            + ",".join(f"{per_contender[m].get(label, float('nan')):.6g}" for m in metrics)
        )
    return "\n".join(rows) + "\n"
