"""Run an experiment into MLflow: one parent run, one child run per contender, plots and tables.

The parent run holds the parameters, the summary metrics, the result tables and the plots; each
contender's child run holds its own parameters and its metrics over time (the mean over seeds or
replay runs at each sampled step), so MLflow's compare view overlays contenders directly. A run
that raises, or is interrupted with Ctrl-C, is marked FAILED on its way out.
"""

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from engine.adapters.tracking import ActiveRun, TrackingStore, params_of
from experiments.experiment import Experiment, ExperimentContext, ExperimentResult
from experiments.plots import curves_figure

__all__ = ["RunOutcome", "mlflow_experiment_name", "run_experiment"]


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
    for curve in result.curves:
        with store.start_run(name, curve.label, params=curve.params, parent=parent) as child:
            child.log_series(
                {
                    metric: (curve.steps.tolist(), values.mean(axis=0).tolist())
                    for metric, values in curve.series.items()
                }
            )
            child.log_metrics(curve.final)
    parent.log_metrics(result.metrics)
    parent.set_tags(result.tags)
    for artifact_file, text in result.tables.items():
        parent.log_text(text, artifact_file)
    for spec in result.figures:
        bands = [curve.band(spec.metric) for curve in result.curves if spec.metric in curve.series]
        parent.log_figure(
            curves_figure(spec.title, spec.ylabel, bands, spec.references), spec.artifact_file
        )
