"""Run an experiment into MLflow: one parent run, one child run per contender, plots and tables.

The parent run holds the parameters, the result tables, the plots and one comparison figure of
the per-contender summary metrics (a panel per metric, a bar per contender: MLflow would draw 24
lone one-bar charts for 24 scalars), and as metrics each summary metric's best and worst value
(`best_and_worst`) beside the metrics of no contender, so its charts say how far apart the
contenders ended; its description is `results.md`, so the run opens on the summary. Each
contender's child run holds its own parameters, its final metrics and its metrics over time
(the mean over seeds or replay runs at each sampled step), so MLflow's compare view overlays
contenders directly. Children are logged worst first: MLflow lists the newest runs first
and its chart view shows only the first ten, so the best contenders are always among those shown.
A run that raises, or is interrupted with Ctrl-C, is marked FAILED on its way out.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from engine.adapters.tracking import ActiveRun, TrackingStore, metric_key, params_of
from experiments.experiment import Curve, Experiment, ExperimentContext, ExperimentResult
from experiments.plots import comparison_figure, curves_figure

__all__ = [
    "RunOutcome",
    "best_and_worst",
    "mlflow_experiment_name",
    "run_experiment",
    "split_summary",
]

# Summary metrics where a smaller value wins (everything else: larger is better).
_LOWER_IS_BETTER = ("regret", "error", "rmse", "loss")
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
    tags = {"thinkpath.experiment": experiment.name, "thinkpath.quick": str(quick).lower()}
    run_name = f"{experiment.name}-quick" if quick else experiment.name
    with store.start_run(name, run_name, params=params_of(logged), tags=tags) as parent:
        result = experiment.execute(params, context)
        _log_result(store, name, parent, result)
    return RunOutcome(run_id=parent.run_id, experiment_name=name, result=result)


def _log_result(
    store: TrackingStore, name: str, parent: ActiveRun, result: ExperimentResult
) -> None:
    for curve in _worst_first(result.curves, result.metrics):
        with store.start_run(name, curve.label, params=curve.params, parent=parent) as child:
            child.log_series(
                {
                    metric: (curve.steps.tolist(), values.mean(axis=0).tolist())
                    for metric, values in curve.series.items()
                }
            )
            child.log_metrics(curve.final)
    labels = [curve.label for curve in result.curves]
    per_contender, overall = split_summary(result.metrics, labels)
    lower = [metric for metric in per_contender if metric.startswith(_LOWER_IS_BETTER)]
    zero = [metric for metric in per_contender if metric.startswith(_TOWARD_ZERO)]
    extremes, leaders = best_and_worst(per_contender, lower, zero)
    parent.log_metrics({**overall, **extremes, "contenders": float(len(labels))})
    parent.set_tags(leaders)
    if per_contender:
        parent.log_figure(
            comparison_figure(f"{name}: summary by contender", per_contender, lower, zero),
            "plots/comparison.png",
        )
        parent.log_text(_summary_csv(per_contender), "summary.csv")
    summary = result.tables.get("results.md")
    # MLflow shows the `mlflow.note.content` tag as the run's description.
    parent.set_tags({**result.tags, **({"mlflow.note.content": summary} if summary else {})})
    for artifact_file, text in result.tables.items():
        parent.log_text(text, artifact_file)
    for spec in result.figures:
        bands = [curve.band(spec.metric) for curve in result.curves if spec.metric in curve.series]
        figure = curves_figure(
            spec.title, spec.ylabel, bands, spec.references, value_range=spec.value_range
        )
        parent.log_figure(figure, spec.artifact_file)


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


def best_and_worst(
    per_contender: Mapping[str, Mapping[str, float]],
    lower_is_better: Sequence[str] = (),
    toward_zero: Sequence[str] = (),
) -> tuple[dict[str, float], dict[str, str]]:
    """The parent run's own metrics: each summary metric's best and worst value over the
    contenders (`<metric>.best`, `<metric>.worst`), and tags naming who is best.

    Why not every contender's value: the children hold those, and 24 scalars on the parent drew
    24 one-bar charts; the best and the worst give the parent a chart per metric that says how
    far apart the contenders ended, and the tag says who won.

    >>> best_and_worst({"regret": {"a": 3.0, "b": 1.0}}, lower_is_better=["regret"])
    ({'regret.best': 1.0, 'regret.worst': 3.0}, {'thinkpath.best.regret': 'b'})
    """
    metrics: dict[str, float] = {}
    tags: dict[str, str] = {}
    for metric, values in per_contender.items():
        if not values:
            continue
        if metric in toward_zero:
            ranked = sorted(values, key=lambda label: abs(values[label]))
        else:
            ranked = sorted(values, key=values.__getitem__, reverse=metric not in lower_is_better)
        metrics[metric_key(metric, "best")] = values[ranked[0]]
        metrics[metric_key(metric, "worst")] = values[ranked[-1]]
        tags[metric_key("thinkpath", "best", metric)] = ranked[0]
    return metrics, tags


def _worst_first(curves: Sequence[Curve], metrics: Mapping[str, float]) -> list[Curve]:
    """Curves ordered so that the best (by the first summary metric) is logged last."""
    per_contender, _ = split_summary(metrics, [curve.label for curve in curves])
    if not per_contender:
        return list(curves)
    metric, values = next(iter(per_contender.items()))
    sign = -1.0 if metric.startswith(_LOWER_IS_BETTER) else 1.0
    return sorted(curves, key=lambda curve: sign * values.get(curve.label, float("-inf")))


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
