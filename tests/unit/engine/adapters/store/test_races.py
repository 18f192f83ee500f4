"""Writers that race: threads sharing one store, and two writers posting the same outcome."""

import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from engine.adapters.store.sql import SqlStore
from engine.domain.records import OutcomeReceipt, OutcomeRecord
from engine.errors import StoreError


def test_threads_sharing_one_store_lose_nothing(sql_store: SqlStore, records: Any) -> None:
    threads, count = 4, 60
    sql_store.save_decisions(
        [
            records.decision(f"t{t}-{i}", path=f"p{i % 3}")
            for t in range(threads)
            for i in range(count)
        ]
    )

    def work(thread: int) -> list[int]:
        return [
            sql_store.record_outcome(OutcomeRecord(f"t{thread}-{i}", "checker", 0.5)).seq
            for i in range(count)
        ]

    with ThreadPoolExecutor(threads) as pool:
        seqs = sorted(seq for result in pool.map(work, range(threads)) for seq in result)
    assert seqs == list(range(1, threads * count + 1))
    paths = [s for s in sql_store.arm_statistics("default") if s.role == "path"]
    assert sum(s.tally.pulls for s in paths) == threads * count
    assert sql_store.rebuild_statistics().agrees


@pytest.mark.postgres
def test_a_writer_that_loses_the_race_for_a_key_replays_it_without_a_gap(
    postgres_store: SqlStore, postgres_url: str, records: Any
) -> None:
    postgres_store.save_decision(records.decision("d1"))
    postgres_store.save_decision(records.decision("d2"))
    other = create_engine(postgres_url)
    result: list[OutcomeReceipt] = []
    with other.connect() as rival:
        # the rival takes seq 1 and appends (d1, checker) but has not committed yet
        rival.execute(text("INSERT INTO namespace_counters VALUES ('default', 1)"))
        rival.execute(
            text("INSERT INTO outcomes VALUES ('default', 1, 'd1', 'checker', 1.0, 1.0, now())")
        )
        racer = threading.Thread(
            target=lambda: result.append(
                postgres_store.record_outcome(OutcomeRecord("d1", "checker", 1.0))
            )
        )
        racer.start()
        time.sleep(0.5)  # the racer has looked up (nothing yet) and waits for the counter row
        assert racer.is_alive()
        rival.commit()
        racer.join(timeout=30)
    other.dispose()
    assert result == [OutcomeReceipt(seq=1, applied=False)]
    # the racer's counter bump was rolled back: the next outcome takes seq 2, no gap
    assert postgres_store.record_outcome(OutcomeRecord("d2", "checker", 1.0)).seq == 2


def test_a_failed_commit_leaves_no_transaction_open(sqlite_store: SqlStore, records: Any) -> None:
    sqlite_store.save_decision(records.decision("d1"))
    sqlite_store.save_decision(records.decision("d2"))
    sqlite_store.record_outcome(OutcomeRecord("d1", "checker", 1.0))
    pid, real = sqlite_store._raw._local.connection

    class FailingCommit:
        """The thread's connection, except that COMMIT fails (a full disk, say)."""

        def cursor(self) -> Any:
            return real.cursor()

        def rollback(self) -> None:
            real.rollback()

        def commit(self) -> None:
            raise sqlite3.OperationalError("database or disk is full")

    sqlite_store._raw._local.connection = (pid, FailingCommit())
    with pytest.raises(StoreError, match="disk is full"):
        sqlite_store.record_outcome(OutcomeRecord("d2", "checker", 1.0))
    sqlite_store._raw._local.connection = (pid, real)
    assert not real.in_transaction
    # nothing of the failed outcome stayed: the retry takes seq 2
    assert sqlite_store.record_outcome(OutcomeRecord("d2", "checker", 1.0)).seq == 2
    assert len(sqlite_store.outcomes_since("default", 0)) == 2
