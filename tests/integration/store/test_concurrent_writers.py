"""Several processes record into one store at once: no lost update, no double count.

Each worker records its own outcomes and retries some of its neighbour's (racing the neighbour
for the same keys), and refreshes from the shared log as it goes. Afterwards the log must hold
each outcome exactly once, with seqs 1..N in commit order, and statistics that a rebuild agrees
with to the last bit.
"""

import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from engine.adapters.store.sql import SqlStore


def reward_of(worker: int, index: int) -> float:
    return ((worker * 7919 + index) % 11) / 10  # as worker.py scores it


def run_writers(
    url: str, start_worker: Any, workers: int, count: int, retries: int
) -> list[dict[str, int]]:
    processes = [start_worker("write", url, w, count, retries, workers) for w in range(workers)]
    for process in processes:  # every worker has opened the store before any starts
        assert process.stdout.readline().strip() == "ready", process.stderr.read()
    for process in processes:
        process.stdin.write("go\n")
        process.stdin.flush()
    reports = []
    for process in processes:
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
        reports.append(json.loads(out.strip().splitlines()[-1]))
    return reports


def check_the_log(url: str, workers: int, count: int, retries: int, reports: list[Any]) -> None:
    total = workers * count
    assert sum(r["applied"] for r in reports) == total
    assert sum(r["replayed"] for r in reports) == workers * retries
    assert all(r["gaps"] == 0 for r in reports)  # every refresh saw a gap-free prefix
    assert all(r["seen_others"] > 0 for r in reports)  # and the others' learning, live
    with SqlStore(url) as store:
        log = store.outcomes_since("default", 0, limit=total + 10)
        assert [o.seq for o in log] == list(range(1, total + 1))
        keys = {(o.decision_id, o.source) for o in log}
        assert keys == {(f"w{w}-{i}", "checker") for w in range(workers) for i in range(count)}
        expected: dict[tuple[str, str], list[float]] = defaultdict(list)
        for outcome in log:
            worker, index = (int(x) for x in outcome.decision_id[1:].split("-"))
            assert outcome.reward == reward_of(worker, index)
            for role, arm in outcome.choices.items():
                expected[(role, arm)].append(outcome.reward)
        live = {(s.role, s.arm_id): s for s in store.arm_statistics("default")}
        assert live.keys() == expected.keys()
        for key, rewards in expected.items():
            assert live[key].tally.pulls == len(rewards)
            assert live[key].tally.outcomes == len(rewards)
            assert math.isclose(live[key].tally.reward_sum, math.fsum(rewards), rel_tol=1e-12)
        assert sum(s.tally.pulls for s in live.values() if s.role == "path") == total
        report = store.rebuild_statistics()
        assert report.agrees, report.mismatches[:3]
        assert report.outcomes == total


@pytest.mark.slow
def test_eight_sqlite_writers_of_two_thousand_outcomes_each(
    tmp_path: Path, start_worker: Any, seed_decisions: Any
) -> None:
    url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    workers, count, retries = 8, 2000, 200
    seed_decisions(url, workers, count)
    reports = run_writers(url, start_worker, workers, count, retries)
    check_the_log(url, workers, count, retries, reports)


@pytest.mark.postgres
def test_four_postgres_writers_share_one_log(
    postgres_url: str, start_worker: Any, seed_decisions: Any
) -> None:
    workers, count, retries = 4, 150, 40
    seed_decisions(postgres_url, workers, count)
    reports = run_writers(postgres_url, start_worker, workers, count, retries)
    check_the_log(postgres_url, workers, count, retries, reports)
