"""MLflow tracking: where runs go, runs that never stay 'running', and the engine's Tracker adapter.

Everything goes through one `MlflowClient` bound to an explicit tracking URI: no process-global
`mlflow.set_tracking_uri`, so two stores in one process (tests, a service beside an experiment)
never cross. MLflow is imported only when a store is opened: its import takes seconds.

The default store is `sqlite:///<home>/mlflow.db` with artifacts under `<home>/mlartifacts`, so
it works offline; an `http(s)://` URI is checked with a quick request before any work starts,
because MLflow's own client would retry an unreachable server for minutes.
"""

import math
import re
import sqlite3
import threading
import time
import urllib.error
import urllib.request
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from engine.domain.models import PROB_BEST_MEANING, ArmStats
from engine.domain.records import DecisionRecord, LearnedOutcome
from engine.errors import ConfigError, StoreError

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from mlflow.tracking import MlflowClient

__all__ = [
    "EXPERIMENT_KIND_TAG",
    "RUN_COLOUR_TAG",
    "TRAINING_RUNS",
    "ActiveRun",
    "MLflowTracker",
    "TrackingStore",
    "default_tracking_uri",
    "metric_key",
    "params_of",
]

# MLflow 3's UI opens an experiment by its kind: without this tag it guesses "GenAI" and lands on
# an empty traces overview; "custom_model_development" opens on the runs (the training-runs view).
EXPERIMENT_KIND_TAG = "mlflow.experimentKind"
TRAINING_RUNS = "custom_model_development"
# MLflow's UI draws a run in the colour this tag holds ("#rrggbb"), else in one it hashes from the
# run's id, which gives two runs the same colour often enough (read in MLflow 3.17's UI bundle).
RUN_COLOUR_TAG = "mlflow.runColor"
_BATCH = 900  # MLflow accepts at most 1,000 metrics per log_batch call
_UNSAFE_KEY = re.compile(r"[^A-Za-z0-9_\-. /]")


def default_tracking_uri(home: Path) -> str:
    """The offline default: a SQLite file in the data directory."""
    return f"sqlite:///{(home / 'mlflow.db').resolve()}"


def metric_key(*parts: str) -> str:
    """A metric name MLflow accepts, built from parts such as a role and an arm id."""
    return ".".join(_UNSAFE_KEY.sub("_", part) for part in parts)


class TrackingStore:
    """An MLflow tracking store, checked on opening; runs and experiments are made through it."""

    def __init__(self, tracking_uri: str, artifact_root: Path) -> None:
        _check_reachable(tracking_uri)
        from mlflow.tracking import MlflowClient  # noqa: PLC0415 - slow import

        self.tracking_uri = tracking_uri
        self.artifact_root = artifact_root
        try:
            with warnings.catch_warnings():
                # MLflow 3.17's SQL store module uses SQLAlchemy's deprecated `noload` at import;
                # the warning is MLflow's to fix and says nothing about this store.
                warnings.filterwarnings("ignore", message=".*noload.*", category=DeprecationWarning)
                self._client: MlflowClient = MlflowClient(tracking_uri=tracking_uri)
                self._client.search_experiments(max_results=1)
        except Exception as error:
            raise ConfigError(
                f"the MLflow tracking store {tracking_uri!r} cannot be opened: {error}"
            ) from error

    @property
    def client(self) -> "MlflowClient":
        return self._client

    def experiment_id(self, name: str) -> str:
        """The id of experiment `name`, created (with artifacts under the root) if new."""
        existing = self._client.get_experiment_by_name(name)
        if existing is not None:
            if existing.tags.get(EXPERIMENT_KIND_TAG) != TRAINING_RUNS:
                self._client.set_experiment_tag(
                    existing.experiment_id, EXPERIMENT_KIND_TAG, TRAINING_RUNS
                )
            return str(existing.experiment_id)
        location = (self.artifact_root / re.sub(r"[^A-Za-z0-9_.-]", "_", name)).resolve()
        location.mkdir(parents=True, exist_ok=True)
        return str(
            self._client.create_experiment(
                name,
                artifact_location=location.as_uri(),
                tags={EXPERIMENT_KIND_TAG: TRAINING_RUNS},
            )
        )

    def start_run(
        self,
        experiment: str,
        run_name: str,
        params: Mapping[str, object] | None = None,
        tags: Mapping[str, str] | None = None,
        parent: "ActiveRun | None" = None,
    ) -> "ActiveRun":
        """A new run in `experiment`; use it as a context manager so it always terminates."""
        all_tags = dict(tags or {})
        if parent is not None:
            all_tags["mlflow.parentRunId"] = parent.run_id
        run = self._client.create_run(
            self.experiment_id(experiment), tags=all_tags, run_name=run_name
        )
        active = ActiveRun(self._client, run.info.run_id)
        if params:
            active.log_params(params)
        return active


def _check_reachable(tracking_uri: str) -> None:
    """Raise `ConfigError` now for a store that cannot work, before any experiment starts."""
    if tracking_uri.startswith(("http://", "https://")):
        try:
            with urllib.request.urlopen(tracking_uri.rstrip("/") + "/health", timeout=3):
                return
        except (urllib.error.URLError, OSError) as error:
            raise ConfigError(
                f"the MLflow tracking server {tracking_uri!r} is unreachable: {error}"
            ) from error
    if tracking_uri.startswith("sqlite:///"):
        path = Path(tracking_uri.removeprefix("sqlite:///"))
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            sqlite3.connect(path).close()
        except (OSError, sqlite3.Error) as error:
            raise ConfigError(
                f"the MLflow tracking database {str(path)!r} cannot be opened: {error}"
            ) from error
    elif "://" not in tracking_uri:
        raise ConfigError(
            f"tracking URI {tracking_uri!r} has no scheme; use sqlite:///PATH or http://HOST:PORT"
        )


class ActiveRun:
    """A started MLflow run: log to it, then leave the `with` block to end it.

    Leaving the block normally marks the run FINISHED; any exception, Ctrl-C included, marks it
    FAILED before the exception goes on, so an interrupted experiment never stays 'running'.
    """

    def __init__(self, client: "MlflowClient", run_id: str) -> None:
        self._client = client
        self.run_id = run_id

    def __enter__(self) -> "ActiveRun":
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.end("FINISHED" if kind is None else "FAILED")

    def end(self, status: str = "FINISHED") -> None:
        self._client.set_terminated(self.run_id, status=status)

    def log_params(self, params: Mapping[str, object]) -> None:
        from mlflow.entities import Param  # noqa: PLC0415 - slow import

        # MLflow caps a parameter value at 6,000 characters; ours are names and small numbers.
        entries = [Param(key, str(value)[:6000]) for key, value in params.items()]
        for start in range(0, len(entries), 100):
            self._client.log_batch(self.run_id, params=entries[start : start + 100])

    def set_tags(self, tags: Mapping[str, str]) -> None:
        for key, value in tags.items():
            self._client.set_tag(self.run_id, key, value)

    def log_metrics(self, metrics: Mapping[str, float], step: int = 0) -> None:
        """Log several metrics at one step (non-finite values are skipped: MLflow rejects NaN)."""
        self.log_series({key: ([step], [value]) for key, value in metrics.items()})

    def log_series(self, series: Mapping[str, tuple[Sequence[int], Sequence[float]]]) -> None:
        """Log metrics over time: name -> (steps, values)."""
        from mlflow.entities import Metric  # noqa: PLC0415 - slow import

        now = int(time.time() * 1000)
        entries = [
            Metric(key, float(value), now, int(step))
            for key, (steps, values) in series.items()
            for step, value in zip(steps, values, strict=True)
            if math.isfinite(float(value))
        ]
        for start in range(0, len(entries), _BATCH):
            self._client.log_batch(self.run_id, metrics=entries[start : start + _BATCH])

    def log_text(self, text: str, artifact_file: str) -> None:
        self._client.log_text(self.run_id, text, artifact_file)

    def log_figure(self, figure: "Figure", artifact_file: str) -> None:
        self._client.log_figure(self.run_id, figure, artifact_file)


class MLflowTracker:
    """The engine's `Tracker` port on MLflow: live decisions and outcomes as one run's metrics.

    The run starts with the first event and stays open until `close()`. Each decision logs its
    propensities and a running count of each chosen arm, then its kind's P(best) per arm once
    its own outcomes are learned (`log_prob_best`); each outcome logs its reward (overall and
    per source) and each arm's running mean reward, at the outcome's learning seq.
    Thread-safe: the service logs from its request threads.
    """

    def __init__(
        self,
        store: TrackingStore,
        experiment: str = "thinkpath-live",
        run_name: str = "service",
        params: Mapping[str, object] | None = None,
    ) -> None:
        self._store = store
        self._experiment = experiment
        self._run_name = run_name
        self._params = dict(params or {})
        self._lock = threading.Lock()
        self._run: ActiveRun | None = None
        self._last_run_id: str | None = None
        self._decisions = 0
        self._choice_counts: dict[str, int] = {}
        self._arm_totals: dict[str, tuple[float, float]] = {}
        self._prob_best_said: str | None = None  # the run whose tags say what P(best) is

    @property
    def run_id(self) -> str | None:
        """The id of the live run, or of the last one after `close()`; None before any event."""
        return self._run.run_id if self._run is not None else self._last_run_id

    def _active(self) -> ActiveRun:
        if self._run is None:
            self._run = self._store.start_run(self._experiment, self._run_name, self._params)
            self._last_run_id = self._run.run_id
        return self._run

    def log_decision(self, decision: DecisionRecord) -> None:
        with self._lock, _as_store_error():
            self._decisions += 1
            metrics = {"decisions": float(self._decisions)}
            for role, arm in decision.choices.items():
                key = metric_key("chosen", role, arm)
                self._choice_counts[key] = self._choice_counts.get(key, 0) + 1
                metrics[key] = float(self._choice_counts[key])
            for role, propensity in decision.propensities.items():
                metrics[metric_key("propensity", role)] = float(propensity)
            seconds = decision.seconds
            if seconds is not None:  # what the decision cost, charged to the model it ran on
                metrics["seconds"] = seconds
                if "model" in decision.choices:
                    metrics[metric_key("seconds", "model", decision.choices["model"])] = seconds
            self._active().log_metrics(metrics, step=self._decisions)

    def log_outcome(self, outcome: LearnedOutcome) -> None:
        with self._lock, _as_store_error():
            metrics = {
                "reward": outcome.reward,
                metric_key("reward", outcome.source): outcome.reward,
            }
            for role, arm in outcome.choices.items():
                key = metric_key("mean_reward", role, arm)
                total, weight = self._arm_totals.get(key, (0.0, 0.0))
                total, weight = total + outcome.weight * outcome.reward, weight + outcome.weight
                self._arm_totals[key] = (total, weight)
                metrics[key] = total / weight
            self._active().log_metrics(metrics, step=outcome.seq)

    def log_prob_best(self, kind: str, arms: Sequence[ArmStats]) -> None:
        """Each live arm's P(best) for `kind` (`engine.PROB_BEST_MEANING`), at the step of the
        decision just logged: one curve per kind, role and arm."""
        metrics = {
            metric_key("prob_best", kind, arm.role, arm.arm_id): float(arm.prob_best)
            for arm in arms
            if arm.prob_best is not None and not arm.retired
        }
        if not metrics:
            return
        with self._lock, _as_store_error():
            run = self._active()
            if self._prob_best_said != run.run_id:  # each run says what its P(best) curves are
                run.set_tags({"prob_best": PROB_BEST_MEANING})
                self._prob_best_said = run.run_id
            run.log_metrics(metrics, step=self._decisions)

    def close(self) -> None:
        """End the live run as FINISHED (a later event starts a new one)."""
        with self._lock, _as_store_error():
            if self._run is not None:
                self._run.end("FINISHED")
                self._run = None

    def __enter__(self) -> "MLflowTracker":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


@contextmanager
def _as_store_error() -> Iterator[None]:
    """MLflow's own exceptions become a `StoreError` of the one ThinkPath error tree."""
    from mlflow.exceptions import MlflowException  # noqa: PLC0415 - slow import

    try:
        yield
    except MlflowException as error:
        raise StoreError(f"MLflow tracking failed: {error}") from error


def params_of(settings: Mapping[str, Any]) -> dict[str, str]:
    """Flatten settings into MLflow params: lists are comma-joined, everything else str()."""
    return {
        key: ",".join(map(str, value)) if isinstance(value, list | tuple) else str(value)
        for key, value in settings.items()
    }
