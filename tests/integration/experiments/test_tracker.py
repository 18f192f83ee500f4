"""The engine's Tracker port on MLflow: live decisions and outcomes become one run's metrics."""

import pytest

from engine.adapters.tracking import MLflowTracker, TrackingStore
from engine.domain.ports import Tracker
from engine.domain.records import DecisionRecord, LearnedOutcome
from tests.factories import decision_record, learned_outcome


def _decision(decision_id: str, arm: str, propensity: float) -> DecisionRecord:
    return decision_record(decision_id, path=arm, propensities={"path": propensity, "tool": 1.0})


def _outcome(seq: int, decision_id: str, arm: str, reward: float) -> LearnedOutcome:
    return learned_outcome(seq, decision_id, reward=reward, choices={"path": arm})


def test_decisions_and_outcomes_are_logged_as_metrics(store: TrackingStore) -> None:
    tracker = MLflowTracker(store, experiment="thinkpath-live-test", params={"policy": "lints"})
    port: Tracker = tracker  # the adapter implements the engine's port
    port.log_decision(_decision("d1", "first_principles", 0.6))
    port.log_decision(_decision("d2", "first_principles", 0.7))
    port.log_outcome(_outcome(1, "d1", "first_principles", 1.0))
    port.log_outcome(_outcome(2, "d2", "first_principles", 0.0))
    run_id = tracker.run_id
    assert run_id is not None
    tracker.close()
    run = store.client.get_run(run_id)
    assert run.info.status == "FINISHED"
    assert run.data.params == {"policy": "lints"}
    assert run.data.metrics["decisions"] == 2
    assert run.data.metrics["chosen.path.first_principles"] == 2
    assert run.data.metrics["propensity.path"] == pytest.approx(0.7)
    assert run.data.metrics["mean_reward.path.first_principles"] == pytest.approx(0.5)
    history = store.client.get_metric_history(run_id, "reward.checker")
    assert [(point.step, point.value) for point in history] == [(1, 1.0), (2, 0.0)]


def test_closing_an_unused_tracker_creates_no_run(store: TrackingStore) -> None:
    tracker = MLflowTracker(store, experiment="thinkpath-live-unused")
    tracker.close()
    assert tracker.run_id is None
    assert store.client.get_experiment_by_name("thinkpath-live-unused") is None
