"""The in-memory store keeps the SQL store's contract: idempotent, validated, ordered."""

import math

import pytest

from engine.adapters.store.memory import InMemoryStore
from engine.domain.records import DecisionRecord, OutcomeRecord
from engine.errors import InvalidRewardError, OutcomeConflictError, UnknownDecisionError
from tests.factories import decision_record


def decision(decision_id: str, namespace: str = "default") -> DecisionRecord:
    return decision_record(decision_id, namespace, tool=None)


def test_outcome_is_applied_once_and_learned_in_order() -> None:
    store = InMemoryStore()
    store.save_decision(decision("d1"))
    store.save_decision(decision("d2"))
    first = store.record_outcome(OutcomeRecord("d1", "checker", 1.0))
    again = store.record_outcome(OutcomeRecord("d1", "checker", 1.0))
    second = store.record_outcome(OutcomeRecord("d2", "user", 0.25, weight=0.5))
    assert (first.seq, first.applied) == (1, True)
    assert (again.seq, again.applied) == (1, False)
    assert second.seq == 2
    learned = store.outcomes_since("default", 0)
    assert [(o.decision_id, o.reward, o.weight) for o in learned] == [
        ("d1", 1.0, 1.0),
        ("d2", 0.25, 0.5),
    ]
    assert learned[0].choices == {"path": "first_principles"}
    assert store.outcomes_since("default", 1) == learned[1:]
    assert store.outcomes_since("other", 0) == []


def test_conflicting_outcome_is_refused() -> None:
    store = InMemoryStore()
    store.save_decision(decision("d1"))
    store.record_outcome(OutcomeRecord("d1", "user", 1.0))
    with pytest.raises(OutcomeConflictError, match="already has a 'user' outcome"):
        store.record_outcome(OutcomeRecord("d1", "user", 0.0))
    assert len(store.outcomes_since("default", 0)) == 1


@pytest.mark.parametrize(
    ("reward", "weight"), [(math.nan, 1.0), (1.5, 1.0), (-0.1, 1.0), (math.inf, 1.0), (0.5, 0.0)]
)
def test_bad_values_are_refused_and_nothing_is_written(reward: float, weight: float) -> None:
    store = InMemoryStore()
    store.save_decision(decision("d1"))
    with pytest.raises(InvalidRewardError):
        store.record_outcome(OutcomeRecord("d1", "user", reward, weight))
    assert store.outcomes_since("default", 0) == []


def test_unknown_decision_is_a_clear_error() -> None:
    store = InMemoryStore()
    with pytest.raises(UnknownDecisionError, match="no decision with id 'nope'"):
        store.record_outcome(OutcomeRecord("nope", "user", 1.0))
    with pytest.raises(UnknownDecisionError):
        store.get_decision("nope")
