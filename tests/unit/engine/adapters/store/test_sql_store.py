"""What only the SQL store has: statistics, their rebuild, and the batch paths."""

from datetime import datetime
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from engine.adapters.store.sql import SqlStore
from engine.adapters.store.statistics import ArmStatistics
from engine.domain.records import ArmTally, OutcomeRecord
from engine.errors import OutcomeConflictError, StoreError, UnknownDecisionError


def seeded(store: SqlStore, records: Any) -> None:
    store.save_decision(records.decision("d1", path="a"))
    store.save_decision(records.decision("d2", path="b"))
    store.save_decision(records.decision("d3", path="a", tool=None))
    store.save_decision(records.decision("x1", namespace="other", path="a"))


def test_statistics_are_updated_with_each_outcome(sql_store: SqlStore, records: Any) -> None:
    seeded(sql_store, records)
    sql_store.record_outcome(OutcomeRecord("d1", "checker", 1.0))
    sql_store.record_outcome(OutcomeRecord("d1", "user", 0.5, weight=0.5))
    sql_store.record_outcome(OutcomeRecord("d1", "user", 0.5, weight=0.5))  # a retry
    sql_store.record_outcome(OutcomeRecord("d2", "checker", 0.0))
    sql_store.record_outcome(OutcomeRecord("d3", "checker", 1.0))
    sql_store.record_outcome(OutcomeRecord("x1", "checker", 1.0))
    assert sql_store.arm_statistics("default") == [
        ArmStatistics("default", "path", "a", ArmTally(2.5, 2.25, 3), 4),
        ArmStatistics("default", "path", "b", ArmTally(1.0, 0.0, 1), 3),
        ArmStatistics("default", "tool", "calculator", ArmTally(2.5, 1.25, 3), 3),
    ]
    assert sql_store.arm_statistics("default")[0].tally.mean == pytest.approx(0.9)
    assert [s.namespace for s in sql_store.arm_statistics()] == ["default"] * 3 + ["other"] * 2


def test_rebuild_agrees_with_live_statistics_and_repairs_damaged_ones(
    sql_store: SqlStore, records: Any
) -> None:
    seeded(sql_store, records)
    for index, name in enumerate(["d1", "d2", "d3", "x1"] * 3):
        sql_store.record_outcome(OutcomeRecord(name, f"s{index}", (index % 7) / 7, 0.3))
    live = sql_store.arm_statistics()
    report = sql_store.rebuild_statistics()
    assert report.agrees
    assert (report.outcomes, report.rows) == (12, len(live))
    assert sql_store.arm_statistics() == live
    engine = create_engine(sql_store._engines.writer.url)
    with engine.begin() as connection:
        connection.execute(text("UPDATE arm_statistics SET pulls = pulls + 1 WHERE arm_id = 'b'"))
        connection.execute(text("DELETE FROM arm_statistics WHERE arm_id = 'calculator'"))
    engine.dispose()
    damaged = sql_store.rebuild_statistics()
    assert not damaged.agrees
    assert {
        (live.arm_id if live else None, rebuilt.arm_id)
        for live, rebuilt in damaged.mismatches
        if rebuilt
    } == {("b", "b"), (None, "calculator")}
    assert sql_store.arm_statistics() == live
    assert sql_store.rebuild_statistics().agrees


def test_a_batch_matches_outcomes_recorded_one_by_one(
    sql_store: SqlStore, records: Any, tmp_path: Any
) -> None:
    outcomes = [
        OutcomeRecord(name, source, reward, weight)
        for name, source, reward, weight in [
            ("d1", "checker", 0.1, 0.3),
            ("d2", "checker", 0.7, 0.9),
            ("x1", "checker", 1.0, 1.0),
            ("d1", "user", 0.3, 0.7),
            ("d1", "checker", 0.1, 0.3),  # a retry inside the batch
            ("d3", "checker", 0.9, 0.1),
        ]
    ]
    with SqlStore(f"sqlite:///{tmp_path / 'one_by_one.sqlite3'}") as reference:
        for store in (sql_store, reference):
            seeded(store, records)
            store.record_outcome(OutcomeRecord("d2", "user", 0.2, 0.6))
        expected = [reference.record_outcome(outcome) for outcome in outcomes]
        assert sql_store.record_outcomes(outcomes) == expected
        assert sql_store.arm_statistics() == reference.arm_statistics()  # exact, not approx
        assert sql_store.outcomes_since("default", 0) == reference.outcomes_since("default", 0)
    assert [r.applied for r in sql_store.record_outcomes(outcomes)] == [False] * len(outcomes)
    assert sql_store.rebuild_statistics().agrees


@pytest.mark.parametrize(
    ("bad", "error"),
    [
        (OutcomeRecord("nope", "checker", 1.0), UnknownDecisionError),
        (OutcomeRecord("d1", "checker", 0.0), OutcomeConflictError),
    ],
)
def test_a_batch_with_one_bad_outcome_writes_nothing(
    sql_store: SqlStore, records: Any, bad: OutcomeRecord, error: type[Exception]
) -> None:
    seeded(sql_store, records)
    sql_store.record_outcome(OutcomeRecord("d1", "checker", 1.0))
    before = sql_store.arm_statistics()
    batch = [OutcomeRecord("d2", "checker", 1.0), OutcomeRecord("x1", "checker", 1.0), bad]
    with pytest.raises(error):
        sql_store.record_outcomes(batch)
    assert sql_store.arm_statistics() == before
    assert len(sql_store.outcomes_since("default", 0)) == 1
    assert sql_store.outcomes_since("other", 0) == []
    # the seqs were not used up either
    assert sql_store.record_outcome(OutcomeRecord("d2", "checker", 1.0)).seq == 2


def test_decisions_are_saved_in_batches_all_or_nothing(sql_store: SqlStore, records: Any) -> None:
    first = [records.decision(f"d{i}") for i in range(5)]
    assert sql_store.save_decisions(first) == 5
    assert sql_store.save_decisions([*first, records.decision("d9")]) == 1
    changed = records.decision("d0", query="something else")
    with pytest.raises(StoreError, match="immutable"):
        sql_store.save_decisions([records.decision("new"), changed])
    with pytest.raises(UnknownDecisionError):
        sql_store.get_decision("new")
    with pytest.raises(StoreError, match="appears twice"):
        sql_store.save_decisions([records.decision("e1"), records.decision("e1", query="?")])


def test_a_payload_without_a_json_form_is_refused(sql_store: SqlStore, records: Any) -> None:
    with pytest.raises(StoreError, match="payload cannot be stored as JSON"):
        sql_store.save_decision(records.decision("d1", payload={"when": datetime(2026, 1, 1)}))
    with pytest.raises(StoreError, match="payload cannot be stored as JSON"):
        sql_store.save_decision(records.decision("d1", payload={"score": float("nan")}))
    with pytest.raises(UnknownDecisionError):
        sql_store.get_decision("d1")
