"""Every store keeps the same contract: the in-memory double, SQLite and PostgreSQL alike."""

import math
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from engine.adapters.store.memory import InMemoryStore
from engine.adapters.store.sql import SqlStore
from engine.domain.records import OutcomeRecord
from engine.errors import (
    InvalidRewardError,
    OutcomeConflictError,
    OutcomeLimitError,
    StoreError,
    UnknownDecisionError,
)

Store = InMemoryStore | SqlStore


def test_a_decision_comes_back_as_saved(store: Store, records: Any) -> None:
    saved = records.decision("d1", payload={"trace": ["seed", "rate"], "answer": "4"})
    store.save_decision(saved)
    assert store.get_decision("d1") == saved
    bare = records.decision("d2", context=None, tool=None, payload={})
    store.save_decision(bare)
    assert store.get_decision("d2") == bare


def test_a_timestamp_keeps_its_moment_in_utc(store: Store, records: Any) -> None:
    local = datetime(2026, 11, 30, 14, 0, 0, 5, tzinfo=timezone(timedelta(hours=2)))
    store.save_decision(records.decision("d1", created_at=local))
    back = store.get_decision("d1").created_at
    assert back == local
    assert back.utcoffset() == timedelta(0) or isinstance(store, InMemoryStore)


def test_saving_a_decision_again_is_a_no_op_but_changing_it_is_refused(
    store: Store, records: Any
) -> None:
    original = records.decision("d1")
    store.save_decision(original)
    store.save_decision(original)
    with pytest.raises(StoreError, match="immutable"):
        store.save_decision(replace(original, choices={"path": "work_backwards"}))
    assert store.get_decision("d1") == original


@pytest.mark.parametrize(
    "changes",
    [
        {"decision_id": ""},
        {"namespace": ""},
        {"propensities": {"path": math.nan}},
        {"propensities": {"path": 1.5}},
        {"context": (1.0, math.inf)},
        {"choices": {"path": ""}},
    ],
)
def test_a_malformed_decision_is_refused_and_not_saved(
    store: Store, records: Any, changes: dict[str, Any]
) -> None:
    bad = replace(records.decision("d1"), **changes)
    with pytest.raises(StoreError):
        store.save_decision(bad)
    with pytest.raises(UnknownDecisionError):
        store.get_decision(bad.decision_id or "d1")


def test_outcomes_get_seqs_in_order_and_a_retry_is_applied_once(store: Store, records: Any) -> None:
    for name in ("d1", "d2"):
        store.save_decision(records.decision(name))
    first = store.record_outcome(OutcomeRecord("d1", "checker", 1.0))
    retry = store.record_outcome(OutcomeRecord("d1", "checker", 1.0))
    second = store.record_outcome(OutcomeRecord("d2", "user", 0.25, weight=0.5))
    other_source = store.record_outcome(OutcomeRecord("d1", "user", 0.0))
    assert [(r.seq, r.applied) for r in (first, retry, second, other_source)] == [
        (1, True),
        (1, False),
        (2, True),
        (3, True),
    ]
    learned = store.outcomes_since("default", 0)
    assert [(o.seq, o.decision_id, o.source, o.reward, o.weight) for o in learned] == [
        (1, "d1", "checker", 1.0, 1.0),
        (2, "d2", "user", 0.25, 0.5),
        (3, "d1", "user", 0.0, 1.0),
    ]
    assert learned[0].choices == {"path": "first_principles", "tool": "calculator"}
    assert learned[0].context == (1.0, 0.0, 0.25)
    assert learned[0].namespace == "default"
    assert store.outcomes_since("default", 1) == learned[1:]
    assert store.outcomes_since("default", 0, limit=2) == learned[:2]
    assert store.outcomes_since("default", 3) == []


def test_a_decisions_outcomes_are_read_by_its_id(store: Store, records: Any) -> None:
    for name in ("d1", "d2"):
        store.save_decision(records.decision(name))
    store.record_outcome(OutcomeRecord("d1", "checker", 1.0))
    store.record_outcome(OutcomeRecord("d2", "user", 0.25, weight=0.5))
    store.record_outcome(OutcomeRecord("d1", "user", 0.0))
    mine = store.outcomes_of("d1")
    assert mine == [o for o in store.outcomes_since("default", 0) if o.decision_id == "d1"]
    assert [(o.seq, o.source) for o in mine] == [(1, "checker"), (3, "user")]
    assert store.outcomes_of("nobody") == []


def test_many_decisions_outcomes_are_read_in_one_call(store: Store, records: Any) -> None:
    """The learner reads a batch's earlier outcomes at once: any number of decisions (more than
    one statement names, on SQL), unknown ones and repeats included, in seq order."""
    names = [f"d{index}" for index in range(300)]
    for name in names:
        store.save_decision(records.decision(name))
    for outcome in [OutcomeRecord(name, "checker", 1.0) for name in names] + [
        OutcomeRecord(name, "user", 0.0) for name in names[::7]
    ]:
        store.record_outcome(outcome)
    everything = store.outcomes_since("default", 0)
    asked = [*reversed(names[::2]), "nobody", names[0], names[7]]
    assert store.outcomes_of(*asked) == [o for o in everything if o.decision_id in set(asked)]
    assert store.outcomes_of("d7", "d3") == [o for o in everything if o.decision_id in {"d3", "d7"}]
    assert store.outcomes_of() == []


def test_the_scores_alone_are_the_same_outcomes(store: Store, records: Any) -> None:
    """Without the decisions' fields (what the learner folds), the same outcomes in the same
    order, each with its own seq, decision, namespace, source, reward and weight."""
    names = [f"d{index}" for index in range(300)]
    for name in names:
        store.save_decision(records.decision(name))
    for outcome in (
        [OutcomeRecord(name, "checker", 1.0) for name in names]
        + [OutcomeRecord(name, "user", 0.25, weight=0.5) for name in names[::3]]
        + [OutcomeRecord("d3", "user", 1.0, max_revisions=3)]
    ):
        store.record_outcome(outcome)
    asked = [*reversed(names[::3]), "nobody", names[1]]

    def own(outcome: Any) -> tuple[Any, ...]:
        fields = ("seq", "decision_id", "namespace", "source", "reward", "weight")
        return tuple(getattr(outcome, name) for name in fields)

    whole = store.outcomes_of(*asked)
    scores = store.outcomes_of(*asked, decision_fields=False)
    assert len(whole) == 2 * 100 + 1 + 1  # a third, each with a user's; d3 corrected; d1
    assert [own(o) for o in scores] == [own(o) for o in whole]
    assert ("d3", "user#1", 1.0) in {(o.decision_id, o.source, o.reward) for o in scores}
    assert store.outcomes_of(decision_fields=False) == []


def test_each_namespace_has_its_own_sequence(store: Store, records: Any) -> None:
    store.save_decision(records.decision("a1", namespace="a"))
    store.save_decision(records.decision("b1", namespace="b"))
    store.save_decision(records.decision("a2", namespace="a"))
    seqs = [
        store.record_outcome(OutcomeRecord(name, "checker", 1.0)).seq for name in ("a1", "b1", "a2")
    ]
    assert seqs == [1, 1, 2]
    assert [o.decision_id for o in store.outcomes_since("a", 0)] == ["a1", "a2"]
    assert [o.decision_id for o in store.outcomes_since("b", 0)] == ["b1"]
    assert store.outcomes_since("nobody", 0) == []


@pytest.mark.parametrize(("reward", "weight"), [(1.0, 0.5), (0.5, 1.0)])
def test_another_value_for_the_same_key_is_a_conflict(
    store: Store, records: Any, reward: float, weight: float
) -> None:
    store.save_decision(records.decision("d1"))
    store.record_outcome(OutcomeRecord("d1", "user", 1.0))
    with pytest.raises(OutcomeConflictError, match="already has a 'user' outcome"):
        store.record_outcome(OutcomeRecord("d1", "user", reward, weight))
    assert [(o.reward, o.weight) for o in store.outcomes_since("default", 0)] == [(1.0, 1.0)]


@pytest.mark.parametrize(
    ("reward", "weight", "source"),
    [
        (math.nan, 1.0, "user"),
        (1.5, 1.0, "user"),
        (-0.1, 1.0, "user"),
        (math.inf, 1.0, "user"),
        (0.5, 0.0, "user"),
        (0.5, 1.01, "user"),
        (0.5, math.nan, "user"),
        (True, 1.0, "user"),
        (0.5, 1.0, ""),
        (0.5, 1.0, "s" * 65),
    ],
)
def test_bad_values_are_refused_and_nothing_is_written(
    store: Store, records: Any, reward: float, weight: float, source: str
) -> None:
    store.save_decision(records.decision("d1"))
    with pytest.raises(InvalidRewardError):
        store.record_outcome(OutcomeRecord("d1", source, reward, weight))
    assert store.outcomes_since("default", 0) == []
    # nothing was held back: a valid outcome is applied with the first seq
    assert store.record_outcome(OutcomeRecord("d1", "user", 0.5)).seq == 1


def test_a_new_client_source_past_its_bound_is_refused_in_the_write(
    store: Store, records: Any
) -> None:
    store.save_decision(records.decision("d1"))
    # the engine's own sources and a source's corrections take no client's place
    for source in ("checker", "user", "user#1", "referee", "user:bob"):
        store.record_outcome(OutcomeRecord("d1", source, 0.5, max_sources=2))
    with pytest.raises(OutcomeLimitError, match=r"2 client sources.*'user:eve' was not"):
        store.record_outcome(OutcomeRecord("d1", "user:eve", 1.0, max_sources=2))
    assert len(store.outcomes_since("default", 0)) == 5
    # a source already there is answered as before: its receipt, not a refusal
    repost = store.record_outcome(OutcomeRecord("d1", "user:bob", 0.5, max_sources=2))
    assert (repost.seq, repost.applied) == (5, False)
    # a wider bound, or none, takes it; the next seq follows with no gap
    assert store.record_outcome(OutcomeRecord("d1", "user:eve", 1.0, max_sources=3)).seq == 6
    assert store.record_outcome(OutcomeRecord("d1", "user:ann", 1.0)).seq == 7


def test_a_correction_takes_its_source_s_next_revision_in_the_store(
    store: Store, records: Any
) -> None:
    """`OutcomeRecord.max_revisions`: the store picks the revision and sees the standing value."""
    store.save_decision(records.decision("d1"))

    def correct(reward: float, source: str = "user") -> tuple[int, bool, int]:
        receipt = store.record_outcome(OutcomeRecord("d1", source, reward, max_revisions=3))
        return (receipt.seq, receipt.applied, receipt.revision)

    assert correct(1.0) == (1, True, 0)  # nothing to correct: its first score
    assert store.record_outcome(OutcomeRecord("d1", "user:bob", 0.5)).seq == 2
    assert correct(0.0) == (3, True, 1)
    assert correct(0.0) == (3, False, 1)  # the value that stands: no new row
    assert correct(0.25, "user:bob") == (4, True, 1)
    assert correct(1.0) == (5, True, 2)
    with pytest.raises(OutcomeLimitError, match=r"'user' has corrected its score.*at most 3"):
        correct(0.0)
    assert correct(1.0) == (5, False, 2)  # the standing value is not refused
    keys = [(o.seq, o.source, o.reward) for o in store.outcomes_of("d1")]
    assert keys == [
        (1, "user", 1.0),
        (2, "user:bob", 0.5),
        (3, "user#1", 0.0),
        (4, "user:bob#1", 0.25),
        (5, "user#2", 1.0),
    ]
    with pytest.raises(UnknownDecisionError):
        store.record_outcome(OutcomeRecord("nope", "user", 1.0, max_revisions=3))


def test_a_batch_s_corrections_follow_its_earlier_outcomes(
    sql_store: SqlStore, records: Any
) -> None:
    store = sql_store
    store.save_decision(records.decision("d1"))
    batch = [
        OutcomeRecord("d1", "user", 1.0),
        OutcomeRecord("d1", "user", 0.0, max_revisions=3),
        OutcomeRecord("d1", "user", 0.0, max_revisions=3),  # stands already
        OutcomeRecord("d1", "user:a", 1.0, max_sources=2, max_revisions=3),  # a first score
    ]
    receipts = store.record_outcomes(batch)
    assert [(r.seq, r.applied, r.revision) for r in receipts] == [
        (1, True, 0),
        (2, True, 1),
        (2, False, 1),
        (3, True, 0),
    ]
    with pytest.raises(OutcomeLimitError, match="2 client sources"):
        store.record_outcomes([OutcomeRecord("d1", "user:b", 1.0, max_sources=2, max_revisions=3)])
    assert [o.source for o in store.outcomes_of("d1")] == ["user", "user#1", "user:a"]


def test_unknown_decision_is_a_clear_error_and_writes_nothing(store: Store) -> None:
    with pytest.raises(UnknownDecisionError, match="no decision with id 'nope'"):
        store.record_outcome(OutcomeRecord("nope", "user", 1.0))
    with pytest.raises(UnknownDecisionError, match="no decision with id 'nope'"):
        store.get_decision("nope")
    assert store.outcomes_since("default", 0) == []


def test_a_limit_below_one_is_refused(store: Store) -> None:
    with pytest.raises(StoreError, match="limit must be at least 1"):
        store.outcomes_since("default", 0, limit=0)


def test_arms_are_listed_and_retired(store: Store, records: Any) -> None:
    store.save_arm(records.arm("work_backwards"))
    store.save_arm(records.arm("calculator", role="tool", origin="tool"))
    store.save_arm(records.arm("detour_1", origin="detour", definition={"steps": ["x"]}))
    store.save_arm(records.arm("elsewhere", namespace="other"))
    retired = records.arm(
        "detour_1",
        origin="detour",
        definition={"steps": ["x"]},
        retired_at=datetime(2026, 12, 1, tzinfo=UTC),
        retired_reason="never beat its parent",
    )
    store.save_arm(retired)
    arms = store.list_arms("default")
    assert [(a.role, a.arm_id) for a in arms] == [
        ("path", "detour_1"),
        ("path", "work_backwards"),
        ("tool", "calculator"),
    ]
    assert arms[0] == retired
    assert [a.arm_id for a in store.list_arms("other")] == ["elsewhere"]


def test_the_catalogue_read_again_holds_every_change_since(store: Store, records: Any) -> None:
    store.save_arm(records.arm("work_backwards"))
    first = store.list_arms("default")
    first.clear()  # the caller's own list: the store's catalogue is untouched
    store.save_arm(records.arm("elsewhere", namespace="other"))
    assert [a.arm_id for a in store.list_arms("default")] == ["work_backwards"]
    retired = records.arm(
        "work_backwards",
        retired_at=datetime(2026, 12, 1, tzinfo=UTC),
        retired_reason="replaced",
    )
    store.save_arm(retired)
    store.save_arm(records.arm("add_steps"))
    assert store.list_arms("default") == [records.arm("add_steps"), retired]


def test_a_malformed_arm_is_refused(store: Store, records: Any) -> None:
    with pytest.raises(StoreError, match="origin must be one of"):
        store.save_arm(records.arm("x", origin="magic"))
    with pytest.raises(StoreError, match="arm_id must be a non-empty string"):
        store.save_arm(records.arm(""))
    assert store.list_arms("default") == []
