"""PostgreSQL records an outcome in one statement; a lost race or a first outcome falls back."""

import threading
import time
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from engine.adapters.store import postgres_append
from engine.adapters.store.sql import SqlStore
from engine.domain.records import ArmTally, OutcomeReceipt, OutcomeRecord
from engine.errors import OutcomeConflictError, OutcomeLimitError, UnknownDecisionError

pytestmark = pytest.mark.postgres


@pytest.fixture
def appends(monkeypatch: pytest.MonkeyPatch) -> list[postgres_append.Appended]:
    """Every result of the one-statement path, in order."""
    seen: list[postgres_append.Appended] = []
    original = postgres_append.append

    def spy(cursor: Any, parameters: dict[str, Any]) -> postgres_append.Appended:
        seen.append(original(cursor, parameters))
        return seen[-1]

    monkeypatch.setattr(postgres_append, "append", spy)
    return seen


def test_after_a_namespace_s_first_outcome_one_statement_does_it_all(
    postgres_store: SqlStore, records: Any, appends: list[postgres_append.Appended]
) -> None:
    for index in range(3):
        postgres_store.save_decision(records.decision(f"d{index}"))
    receipts = [
        postgres_store.record_outcome(OutcomeRecord(f"d{index}", "checker", 0.5 * index))
        for index in range(3)
    ]
    assert [r.seq for r in receipts] == [1, 2, 3]
    # the first outcome found no counter row and took the portable path, which made it
    assert [a.seq for a in appends] == [None, 2, 3]
    again = postgres_store.record_outcome(OutcomeRecord("d1", "checker", 0.5))
    assert again == OutcomeReceipt(seq=2, applied=False)
    assert appends[-1].prior == (2, 0.5, 1.0)
    with pytest.raises(OutcomeConflictError):
        postgres_store.record_outcome(OutcomeRecord("d1", "checker", 0.0))
    with pytest.raises(UnknownDecisionError):
        postgres_store.record_outcome(OutcomeRecord("nope", "checker", 0.0))
    stats = {(s.role, s.arm_id): s for s in postgres_store.arm_statistics("default")}
    calculator = stats[("tool", "calculator")]
    assert calculator.tally == ArmTally(3.0, 1.5, 3)
    assert calculator.last_seq == 3
    assert postgres_store.rebuild_statistics().agrees


def test_a_writer_that_loses_the_race_in_one_statement_leaves_no_gap(
    postgres_store: SqlStore, postgres_url: str, records: Any
) -> None:
    for name in ("d0", "d1", "d2"):
        postgres_store.save_decision(records.decision(name))
    postgres_store.record_outcome(OutcomeRecord("d0", "checker", 1.0))  # the counter row exists
    other = create_engine(postgres_url)
    result: list[OutcomeReceipt] = []
    with other.connect() as rival:
        # the rival holds the counter at seq 2 with (d1, checker) appended, not yet committed
        rival.execute(text("UPDATE namespace_counters SET last_seq = 2"))
        rival.execute(
            text("INSERT INTO outcomes VALUES ('default', 2, 'd1', 'checker', 1.0, 1.0, now())")
        )
        racer = threading.Thread(
            target=lambda: result.append(
                postgres_store.record_outcome(OutcomeRecord("d1", "checker", 1.0))
            )
        )
        racer.start()
        time.sleep(0.5)  # the racer's statement waits for the counter row's lock
        assert racer.is_alive()
        rival.commit()
        racer.join(timeout=30)
    other.dispose()
    assert result == [OutcomeReceipt(seq=2, applied=False)]
    assert postgres_store.record_outcome(OutcomeRecord("d2", "checker", 1.0)).seq == 3
    assert [o.seq for o in postgres_store.outcomes_since("default", 0)] == [1, 2, 3]


@pytest.fixture
def groups(monkeypatch: pytest.MonkeyPatch) -> list[list[int] | None]:
    """Every result of the one-statement batch path, in order."""
    seen: list[list[int] | None] = []
    original = postgres_append.append_many

    def spy(cursor: Any, outcomes: Any, created_at: Any) -> list[OutcomeReceipt] | None:
        receipts = original(cursor, outcomes, created_at)
        seen.append(None if receipts is None else [receipt.seq for receipt in receipts])
        return receipts

    monkeypatch.setattr(postgres_append, "append_many", spy)
    return seen


def test_a_group_s_outcomes_go_in_with_one_statement_in_order(
    postgres_store: SqlStore, records: Any, groups: list[list[int] | None]
) -> None:
    for index in range(5):
        postgres_store.save_decision(records.decision(f"d{index}", tool=f"tool{index % 2}"))
    first = [OutcomeRecord("d0", "checker", 1.0), OutcomeRecord("d0", "user", 0.0)]
    # a namespace's first outcomes: no counter row, so the portable path, which makes it
    assert [r.seq for r in postgres_store._record_group(first)] == [1, 2]
    batch = [
        OutcomeRecord("d3", "user", 0.25, weight=0.5),
        OutcomeRecord("d1", "checker", 1.0),
        OutcomeRecord("d3", "checker", 0.0),
        OutcomeRecord("d2", "user", 0.75),
    ]
    receipts = postgres_store._record_group(batch)
    assert receipts == [OutcomeReceipt(seq=seq, applied=True) for seq in (3, 4, 5, 6)]
    assert groups == [None, [3, 4, 5, 6]]
    learned = postgres_store.outcomes_since("default", 2)
    assert [(o.seq, o.decision_id, o.source, o.reward, o.weight) for o in learned] == [
        (3, "d3", "user", 0.25, 0.5),
        (4, "d1", "checker", 1.0, 1.0),
        (5, "d3", "checker", 0.0, 1.0),
        (6, "d2", "user", 0.75, 1.0),
    ]
    stats = {(s.role, s.arm_id): s for s in postgres_store.arm_statistics("default")}
    assert stats[("tool", "tool1")].tally == ArmTally(2.5, 1.125, 3)
    assert stats[("tool", "tool1")].last_seq == 5
    assert stats[("path", "first_principles")].tally == ArmTally(5.5, 2.875, 6)
    assert postgres_store.rebuild_statistics().agrees
    # the next outcome, alone, follows the batch's seqs
    assert postgres_store.record_outcome(OutcomeRecord("d4", "user", 1.0)).seq == 7


@pytest.mark.parametrize(
    ("batch", "applied"),
    [
        ([("d1", "user", 1.0), ("d1", "user", 1.0)], [True, False]),  # a key twice: a replay
        ([("d2", "user", 1.0), ("d0", "checker", 1.0)], [True, False]),  # a key stored before
        ([("d1", "user", 1.0), ("other", "user", 0.5)], [True, True]),  # two namespaces
    ],
)
def test_a_group_the_one_statement_does_not_take_goes_the_portable_way(
    postgres_store: SqlStore,
    records: Any,
    groups: list[list[int] | None],
    batch: list[tuple[str, str, float]],
    applied: list[bool],
) -> None:
    for name in ("d0", "d1", "d2"):
        postgres_store.save_decision(records.decision(name))
    postgres_store.save_decision(records.decision("other", namespace="elsewhere"))
    postgres_store.record_outcome(OutcomeRecord("d0", "checker", 1.0))
    postgres_store.record_outcome(OutcomeRecord("other", "checker", 1.0))
    receipts = postgres_store._record_group([OutcomeRecord(*values) for values in batch])
    assert groups == [None]  # it wrote nothing
    assert [r.applied for r in receipts] == applied
    assert [r.seq for r in receipts][:1] == [2]
    assert len(postgres_store.outcomes_since("default", 0)) == 2  # the first goes in here
    assert postgres_store.rebuild_statistics().agrees


@pytest.mark.parametrize(
    ("batch", "error"),
    [
        ([("d1", "user", 1.0), ("nope", "user", 1.0)], UnknownDecisionError),
        ([("d1", "user", 1.0), ("d0", "checker", 0.0)], OutcomeConflictError),
    ],
)
def test_a_group_with_a_bad_outcome_writes_nothing(
    postgres_store: SqlStore,
    records: Any,
    groups: list[list[int] | None],
    batch: list[tuple[str, str, float]],
    error: type[Exception],
) -> None:
    for name in ("d0", "d1"):
        postgres_store.save_decision(records.decision(name))
    postgres_store.record_outcome(OutcomeRecord("d0", "checker", 1.0))
    with pytest.raises(error):  # group commit then retries each on its own
        postgres_store._record_group([OutcomeRecord(*values) for values in batch])
    assert groups == [None]
    assert len(postgres_store.outcomes_since("default", 0)) == 1


def test_a_post_that_waited_for_the_counter_counts_the_sources_its_rival_wrote(
    postgres_store: SqlStore, postgres_url: str, records: Any
) -> None:
    """Two posts racing for a decision's last client place from two processes: one gets it."""
    postgres_store.save_decision(records.decision("d1"))
    postgres_store.record_outcome(OutcomeRecord("d1", "user", 1.0))  # one of two places taken
    other = create_engine(postgres_url)
    errors: list[BaseException] = []

    def post() -> None:
        try:
            postgres_store.record_outcome(OutcomeRecord("d1", "user:eve", 1.0, max_sources=2))
        except OutcomeLimitError as error:
            errors.append(error)

    with other.connect() as rival:
        # the rival takes the last place (seq 2), not yet committed
        rival.execute(text("UPDATE namespace_counters SET last_seq = 2"))
        rival.execute(
            text("INSERT INTO outcomes VALUES ('default', 2, 'd1', 'user:bob', 1.0, 1.0, now())")
        )
        racer = threading.Thread(target=post)
        racer.start()
        time.sleep(0.5)  # the racer's statement counted one source and waits for the counter
        assert racer.is_alive()
        rival.commit()
        racer.join(timeout=30)
    other.dispose()
    assert [type(error) for error in errors] == [OutcomeLimitError]
    assert [o.source for o in postgres_store.outcomes_of("d1")] == ["user", "user:bob"]
    assert postgres_store.record_outcome(OutcomeRecord("d1", "checker", 1.0)).seq == 3


def test_a_group_is_bounded_as_its_outcomes_one_by_one(
    postgres_store: SqlStore, records: Any, groups: list[list[int] | None]
) -> None:
    for name in ("d0", "d1", "d2"):
        postgres_store.save_decision(records.decision(name))
    postgres_store.record_outcome(OutcomeRecord("d0", "checker", 1.0))  # the counter row
    postgres_store.record_outcome(OutcomeRecord("d1", "user", 1.0))
    fits = [
        OutcomeRecord("d1", "user:a", 1.0, max_sources=3),
        OutcomeRecord("d2", "user:a", 1.0, max_sources=1),
        OutcomeRecord("d1", "user#1", 0.0),  # a correction takes no place
        OutcomeRecord("d1", "checker", 1.0, max_sources=2),  # nor does the engine's
    ]
    assert [r.seq for r in postgres_store._record_group(fits)] == [3, 4, 5, 6]
    # the batch's earlier outcomes count: user:c finds d1 full after user:b
    crowded = [
        OutcomeRecord("d1", "user:b", 1.0, max_sources=3),
        OutcomeRecord("d1", "user:c", 1.0, max_sources=3),
    ]
    with pytest.raises(OutcomeLimitError, match="3 client sources"):
        postgres_store._record_group(crowded)
    assert groups == [[3, 4, 5, 6], None]
    assert len(postgres_store.outcomes_since("default", 0)) == 6


def test_a_group_that_waited_for_another_process_locks_first_then_writes_in_one_statement(
    postgres_store: SqlStore, postgres_url: str, records: Any, groups: list[list[int] | None]
) -> None:
    for name in ("d0", "d1", "d2"):
        postgres_store.save_decision(records.decision(name))
    postgres_store.record_outcome(OutcomeRecord("d0", "checker", 1.0))  # the counter row
    other = create_engine(postgres_url)
    receipts: list[list[OutcomeReceipt]] = []
    batch = [OutcomeRecord("d1", "user", 1.0, max_sources=2), OutcomeRecord("d2", "user", 0.0)]
    with other.connect() as rival:
        rival.execute(text("UPDATE namespace_counters SET last_seq = 2"))
        rival.execute(
            text("INSERT INTO outcomes VALUES ('default', 2, 'd1', 'user:bob', 1.0, 1.0, now())")
        )
        racer = threading.Thread(
            target=lambda: receipts.append(postgres_store._record_group(batch))
        )
        racer.start()
        time.sleep(0.5)  # the group's statement waits for the counter row's lock
        assert racer.is_alive()
        rival.commit()
        racer.join(timeout=30)
    other.dispose()
    # its first statement saw the counter move and wrote nothing (no result: it raised); the
    # second, after the lock, counted user:bob and took the next seqs
    assert receipts == [[OutcomeReceipt(seq=3, applied=True), OutcomeReceipt(seq=4, applied=True)]]
    assert groups == [[3, 4]]
    assert [o.source for o in postgres_store.outcomes_of("d1")] == ["user:bob", "user"]
    assert [o.seq for o in postgres_store.outcomes_since("default", 0)] == [1, 2, 3, 4]


def test_a_group_that_waited_for_another_process_counts_the_sources_it_wrote(
    postgres_store: SqlStore, postgres_url: str, records: Any, groups: list[list[int] | None]
) -> None:
    for name in ("d0", "d1", "d2"):
        postgres_store.save_decision(records.decision(name))
    postgres_store.record_outcome(OutcomeRecord("d0", "checker", 1.0))  # the counter row
    postgres_store.record_outcome(OutcomeRecord("d1", "user", 1.0))  # one of two places taken
    other = create_engine(postgres_url)
    errors: list[BaseException] = []
    batch = [OutcomeRecord("d1", "user:eve", 1.0, max_sources=2), OutcomeRecord("d2", "user", 0.0)]

    def post() -> None:
        try:
            postgres_store._record_group(batch)
        except OutcomeLimitError as error:
            errors.append(error)

    with other.connect() as rival:
        rival.execute(text("UPDATE namespace_counters SET last_seq = 3"))
        rival.execute(
            text("INSERT INTO outcomes VALUES ('default', 3, 'd1', 'user:bob', 1.0, 1.0, now())")
        )
        racer = threading.Thread(target=post)
        racer.start()
        time.sleep(0.5)
        assert racer.is_alive()
        rival.commit()
        racer.join(timeout=30)
    other.dispose()
    assert [type(error) for error in errors] == [OutcomeLimitError]  # group commit retries each
    assert groups == [None]
    assert [o.source for o in postgres_store.outcomes_of("d1")] == ["user", "user:bob"]


def test_a_group_s_corrections_take_their_revisions_in_the_one_statement(
    postgres_store: SqlStore, records: Any, groups: list[list[int] | None]
) -> None:
    for name in ("d0", "d1", "d2"):
        postgres_store.save_decision(records.decision(name))
    postgres_store.record_outcome(OutcomeRecord("d0", "checker", 1.0))  # the counter row
    postgres_store.record_outcome(OutcomeRecord("d1", "user", 1.0))
    batch = [
        OutcomeRecord("d1", "user", 0.0, max_sources=2, max_revisions=3),  # revision 1
        OutcomeRecord("d2", "user", 0.5),
        OutcomeRecord("d2", "user:a", 1.0, max_sources=2, max_revisions=3),  # nothing to correct
    ]
    receipts = postgres_store._record_group(batch)
    assert [(r.seq, r.applied, r.revision) for r in receipts] == [
        (3, True, 1),
        (4, True, 0),
        (5, True, 0),
    ]
    assert groups == [[3, 4, 5]]
    assert [o.source for o in postgres_store.outcomes_of("d1", "d2")] == [
        "user",
        "user#1",
        "user",
        "user:a",
    ]
    # the standing value again, a correction past the bound: the portable path answers
    standing = postgres_store._record_group(
        [OutcomeRecord("d1", "user", 0.0, max_revisions=3), OutcomeRecord("d0", "user", 1.0)]
    )
    assert [(r.seq, r.applied, r.revision) for r in standing] == [(3, False, 1), (6, True, 0)]
    postgres_store.record_outcome(OutcomeRecord("d1", "user", 1.0, max_revisions=3))  # 2 of 3
    with pytest.raises(OutcomeLimitError, match="at most 3 scores"):
        postgres_store._record_group(
            [OutcomeRecord("d1", "user", 0.0, max_revisions=3), OutcomeRecord("d2", "checker", 1.0)]
        )
    assert groups == [[3, 4, 5], None, None]
    assert postgres_store.rebuild_statistics().agrees


def test_a_correction_that_waited_for_the_counter_takes_the_revision_after_its_rival_s(
    postgres_store: SqlStore, postgres_url: str, records: Any
) -> None:
    """Two corrections of one source racing from two processes: each gets a revision of its
    own, in commit order (the one statement's snapshot missed the rival's: the portable path)."""
    postgres_store.save_decision(records.decision("d1"))
    postgres_store.record_outcome(OutcomeRecord("d1", "user", 1.0))
    other = create_engine(postgres_url)
    receipts: list[OutcomeReceipt] = []
    correction = OutcomeRecord("d1", "user", 0.25, max_revisions=5)
    with other.connect() as rival:
        rival.execute(text("UPDATE namespace_counters SET last_seq = 2"))
        rival.execute(
            text("INSERT INTO outcomes VALUES ('default', 2, 'd1', 'user#1', 0.0, 1.0, now())")
        )
        racer = threading.Thread(
            target=lambda: receipts.append(postgres_store.record_outcome(correction))
        )
        racer.start()
        time.sleep(0.5)  # the racer's statement saw revision 0 standing and waits for the counter
        assert racer.is_alive()
        rival.commit()
        racer.join(timeout=30)
    other.dispose()
    assert receipts == [OutcomeReceipt(seq=3, applied=True, revision=2)]
    learned = postgres_store.outcomes_of("d1")
    assert [(o.seq, o.source, o.reward) for o in learned] == [
        (1, "user", 1.0),
        (2, "user#1", 0.0),
        (3, "user#2", 0.25),
    ]
