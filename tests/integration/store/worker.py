"""A store client in its own process, driven by the multi-process store tests.

worker.py write URL INDEX COUNT RETRIES   record COUNT outcomes of its own decisions, retry
                                          RETRIES of the next worker's, refresh as it goes;
                                          waits for a line on stdin before it starts
worker.py stream URL PREFIX               save and score decisions until killed, printing
                                          "decision_id seq" after each acknowledged outcome
"""

import json
import sys
from datetime import UTC, datetime

from engine.adapters.store.sql import SqlStore
from engine.domain.records import DecisionRecord, OutcomeRecord

PATHS = ("first_principles", "work_backwards", "analogy", "systematic")
TOOLS = ("calculator", "search")


def decision_id(worker: int, index: int) -> str:
    return f"w{worker}-{index}"


def reward_of(worker: int, index: int) -> float:
    return ((worker * 7919 + index) % 11) / 10


def write(url: str, worker: int, count: int, retries: int, workers: int) -> None:
    store = SqlStore(url)
    print("ready", flush=True)
    sys.stdin.readline()  # the start signal: every worker begins at once
    applied = replayed = seen_others = gaps = 0
    last_seq = 0

    def refresh() -> None:
        nonlocal last_seq, seen_others, gaps
        for outcome in store.outcomes_since("default", last_seq):
            gaps += outcome.seq != last_seq + 1
            last_seq = outcome.seq
            seen_others += not outcome.decision_id.startswith(f"w{worker}-")

    neighbour = (worker + 1) % workers
    for index in range(count):
        receipt = store.record_outcome(
            OutcomeRecord(decision_id(worker, index), "checker", reward_of(worker, index))
        )
        applied += receipt.applied
        replayed += not receipt.applied
        if index < retries:  # a retry of an outcome that the neighbour posts too
            again = store.record_outcome(
                OutcomeRecord(decision_id(neighbour, index), "checker", reward_of(neighbour, index))
            )
            applied += again.applied
            replayed += not again.applied
        if index % 100 == 0:
            refresh()
    refresh()
    store.close()
    report = {"applied": applied, "replayed": replayed, "seen_others": seen_others}
    print(json.dumps(report | {"gaps": gaps, "last_seq": last_seq}), flush=True)


def stream(url: str, prefix: str) -> None:
    store = SqlStore(url)
    index = 0
    while True:
        names = [f"{prefix}-{index + n}" for n in range(5 if index % 50 == 0 else 1)]
        store.save_decisions(
            [
                DecisionRecord(
                    decision_id=name,
                    namespace="default",
                    created_at=datetime.now(UTC),
                    query=f"question {name}",
                    context=(float(index % 5),),
                    choices={"path": PATHS[index % 4], "tool": TOOLS[index % 2]},
                    propensities={"path": 0.25, "tool": 0.5},
                )
                for name in names
            ]
        )
        outcomes = [OutcomeRecord(name, "checker", (index % 3) / 2) for name in names]
        if len(outcomes) == 1:  # one by one, with an occasional batch between
            receipts = [store.record_outcome(outcomes[0])]
        else:
            receipts = store.record_outcomes(outcomes)
        print(
            "\n".join(f"{o.decision_id} {r.seq}" for o, r in zip(outcomes, receipts, strict=True)),
            flush=True,
        )
        index += len(names)


if __name__ == "__main__":
    mode, url = sys.argv[1], sys.argv[2]
    if mode == "write":
        index, count, retries, workers = (int(x) for x in sys.argv[3:7])
        write(url, index, count, retries, workers)
    else:
        stream(url, sys.argv[3])
