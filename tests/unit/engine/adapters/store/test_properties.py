"""Properties over random streams of outcomes: the stores agree, and a batch equals one by one."""

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.adapters.store.memory import InMemoryStore
from engine.adapters.store.sql import SqlStore
from engine.domain.records import OutcomeReceipt, OutcomeRecord
from engine.errors import OutcomeConflictError
from tests.factories import decision_record

DECISIONS = [
    decision_record(
        f"d{index}", "ab"[index % 2], f"p{index % 3}", f"t{index % 2}", context=(float(index),)
    )
    for index in range(6)
]

outcomes = st.lists(
    st.builds(
        OutcomeRecord,
        decision_id=st.sampled_from([d.decision_id for d in DECISIONS]),
        source=st.sampled_from(["checker", "user"]),
        reward=st.sampled_from([0.0, 0.1, 0.5, 1.0]),
        weight=st.sampled_from([0.3, 1.0]),
    ),
    max_size=25,
)


def replay(store: InMemoryStore | SqlStore, stream: list[OutcomeRecord]) -> list[object]:
    """Record `stream` one by one; a conflict is part of the result, not a failure."""
    results: list[object] = []
    for outcome in stream:
        try:
            results.append(store.record_outcome(outcome))
        except OutcomeConflictError:
            results.append("conflict")
    return results


@settings(max_examples=30, deadline=None)
@given(stream=outcomes)
def test_sqlite_and_memory_stores_agree_on_any_stream(stream: list[OutcomeRecord]) -> None:
    memory = InMemoryStore()
    with (
        tempfile.TemporaryDirectory() as folder,
        SqlStore(f"sqlite:///{Path(folder) / 's.sqlite3'}") as sql,
    ):
        for decision in DECISIONS:
            memory.save_decision(decision)
            sql.save_decision(decision)
        assert replay(sql, stream) == replay(memory, stream)
        for namespace in "ab":
            assert sql.outcomes_since(namespace, 0) == memory.outcomes_since(namespace, 0)
        assert sql.rebuild_statistics().agrees


@settings(max_examples=30, deadline=None)
@given(stream=outcomes)
def test_a_batch_equals_the_same_outcomes_one_by_one(stream: list[OutcomeRecord]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        one = SqlStore(f"sqlite:///{Path(folder) / 'one.sqlite3'}")
        many = SqlStore(f"sqlite:///{Path(folder) / 'many.sqlite3'}")
        with one, many:
            one.save_decisions(DECISIONS)
            many.save_decisions(DECISIONS)
            expected = replay(one, stream)
            if "conflict" in expected:  # a batch is all or nothing: it refuses the whole stream
                try:
                    many.record_outcomes(stream)
                except OutcomeConflictError:
                    assert many.outcomes_since("a", 0) == many.outcomes_since("b", 0) == []
                    return
                raise AssertionError("the batch accepted a conflicting outcome")
            receipts: list[OutcomeReceipt] = many.record_outcomes(stream)
            assert receipts == expected
            assert many.arm_statistics() == one.arm_statistics()  # bit for bit
            for namespace in "ab":
                assert many.outcomes_since(namespace, 0) == one.outcomes_since(namespace, 0)
