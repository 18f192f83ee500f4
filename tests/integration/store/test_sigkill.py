"""A writer killed with SIGKILL at random moments loses no acknowledged outcome.

Two writers stream decisions and outcomes into one SQLite store, one by one and in batches, and
print each outcome's seq once `record_outcome(s)` has returned (acknowledged). The test kills
both at a random moment, again and again; afterwards the store must open cleanly, pass SQLite's
integrity check, hold every acknowledged outcome with the seq it was acknowledged with, have
gap-free seqs, and agree with a rebuild of its statistics.
"""

import random
import signal
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from engine.adapters.store.sql import SqlStore

ROUNDS = 3


def acknowledged_until_killed(process: Any, delay_s: float) -> list[tuple[str, int]]:
    """Read acknowledgements until `delay_s` after the first one, then SIGKILL the process."""
    lines: list[str] = []
    first = threading.Event()

    def read() -> None:
        for line in process.stdout:
            lines.append(line)
            first.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert first.wait(timeout=120), process.stderr.read()
    time.sleep(delay_s)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    reader.join(timeout=30)
    assert process.returncode == -signal.SIGKILL
    # a line cut short by the kill was never acknowledged: keep whole lines only
    whole = [line.split() for line in lines if line.endswith("\n")]
    return [(name, int(seq)) for name, seq in whole]


@pytest.mark.slow
def test_no_acknowledged_outcome_is_lost_to_sigkill(tmp_path: Path, start_worker: Any) -> None:
    path = tmp_path / "store.sqlite3"
    url = f"sqlite:///{path}"
    SqlStore(url).close()
    chance = random.Random(7)
    acknowledged: dict[str, int] = {}
    for round_number in range(ROUNDS):
        writers = [start_worker("stream", url, f"r{round_number}p{n}") for n in range(2)]
        delays = [chance.uniform(0.05, 1.0) for _ in writers]
        with ThreadPoolExecutor(len(writers)) as pool:
            outputs = list(pool.map(acknowledged_until_killed, writers, delays))
        for output in outputs:
            assert output, "a writer was killed before its first acknowledgement"
            acknowledged.update(output)
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    with SqlStore(url) as store:
        log = store.outcomes_since("default", 0, limit=1_000_000)
        stored = {outcome.decision_id: outcome.seq for outcome in log}
        missing = {name: seq for name, seq in acknowledged.items() if stored.get(name) != seq}
        assert missing == {}
        assert [outcome.seq for outcome in log] == list(range(1, len(log) + 1))
        assert len(log) >= len(acknowledged)
        assert store.rebuild_statistics().agrees
