"""Every store keeps learner checkpoints the same way: memory, SQLite and PostgreSQL alike."""

from typing import Any

import pytest

from engine.adapters.store.memory import InMemoryStore
from engine.adapters.store.sql import SqlStore
from engine.domain.records import CheckpointRecord, OutcomeRecord
from engine.errors import StoreError

Store = InMemoryStore | SqlStore
PRINT = "a1b2c3d4e5f60718"


def with_outcomes(store: Store, records: Any, count: int, namespace: str = "default") -> None:
    for index in range(count):
        store.save_decision(records.decision(f"{namespace}-{index}", namespace=namespace))
        store.record_outcome(OutcomeRecord(f"{namespace}-{index}", "checker", 1.0))


def checkpoint(seq: int, **changes: Any) -> CheckpointRecord:
    fields: dict[str, Any] = {
        "namespace": "default",
        "fingerprint": PRINT,
        "seq": seq,
        "state": {"last_seq": seq, "policies": {"path": {"arms": ["a", "b"]}}},
    }
    return CheckpointRecord(**(fields | changes))


def test_there_is_no_checkpoint_at_first(store: Store) -> None:
    assert store.latest_checkpoint("default", PRINT) is None


def test_the_newest_checkpoint_of_a_configuration_comes_back(store: Store, records: Any) -> None:
    with_outcomes(store, records, 5)
    for seq in (2, 5, 3):
        store.save_checkpoint(checkpoint(seq, state={"last_seq": seq}))
    latest = store.latest_checkpoint("default", PRINT)
    assert latest is not None
    assert (latest.seq, dict(latest.state)) == (5, {"last_seq": 5})
    assert latest.created_at is not None
    assert store.latest_checkpoint("default", "another-config") is None
    assert store.latest_checkpoint("elsewhere", PRINT) is None


def test_a_second_checkpoint_of_the_same_seq_is_ignored(store: Store, records: Any) -> None:
    with_outcomes(store, records, 2)
    store.save_checkpoint(checkpoint(2, state={"writer": "first"}))
    store.save_checkpoint(checkpoint(2, state={"writer": "second"}))
    latest = store.latest_checkpoint("default", PRINT)
    assert latest is not None
    assert latest.state == {"writer": "first"}


def test_the_stored_state_is_a_copy(store: Store, records: Any) -> None:
    with_outcomes(store, records, 1)
    state: dict[str, Any] = {"tallies": [1, 2]}
    store.save_checkpoint(checkpoint(1, state=state))
    state["tallies"].append(3)
    latest = store.latest_checkpoint("default", PRINT)
    assert latest is not None
    assert latest.state == {"tallies": [1, 2]}


def test_a_checkpoint_beyond_the_log_is_refused(store: Store, records: Any) -> None:
    with_outcomes(store, records, 2)
    with pytest.raises(StoreError, match="beyond namespace 'default'"):
        store.save_checkpoint(checkpoint(3))
    with pytest.raises(StoreError, match="beyond"):
        store.save_checkpoint(checkpoint(1, namespace="empty"))
    assert store.latest_checkpoint("default", PRINT) is None


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"seq": 0}, "positive integer"),
        ({"seq": True}, "positive integer"),
        ({"fingerprint": ""}, "fingerprint"),
        ({"fingerprint": "x" * 65}, "fingerprint"),
        ({"namespace": ""}, "namespace"),
        ({"state": ["not", "a", "dict"]}, "must be a dict"),
        ({"state": {"reward": float("nan")}}, "cannot be stored as JSON"),
        ({"state": {"when": object()}}, "cannot be stored as JSON"),
    ],
)
def test_a_bad_checkpoint_is_refused_clearly(
    store: Store, records: Any, changes: dict[str, Any], message: str
) -> None:
    with_outcomes(store, records, 1)
    with pytest.raises(StoreError, match=message):
        store.save_checkpoint(checkpoint(**({"seq": 1} | changes)))
    assert store.latest_checkpoint("default", PRINT) is None


def test_old_checkpoints_are_pruned_but_the_newest_stay(sql_store: SqlStore, records: Any) -> None:
    with_outcomes(sql_store, records, 6)
    for seq in range(1, 7):
        sql_store.save_checkpoint(checkpoint(seq))
    sql_store.save_checkpoint(checkpoint(6, fingerprint="other-config"))
    with sql_store._engines.reader.connect() as connection:
        kept = connection.exec_driver_sql(
            "SELECT fingerprint, seq FROM checkpoints ORDER BY fingerprint, seq"
        ).all()
    assert [tuple(row) for row in kept] == [(PRINT, 5), (PRINT, 6), ("other-config", 6)]
