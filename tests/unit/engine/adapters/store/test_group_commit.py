"""Outcomes posted at once share a transaction; each poster still gets its own answer."""

import threading
from collections.abc import Sequence

import pytest

from engine.adapters.store.group_commit import GroupCommit
from engine.domain.records import OutcomeReceipt, OutcomeRecord
from engine.errors import UnknownDecisionError


class SlowLog:
    """A log whose writes take a while (as a commit waits for a disk flush)."""

    def __init__(self) -> None:
        self.seqs: list[str] = []
        self.transactions: list[int] = []  # outcomes per transaction
        self.writing = threading.Event()
        self.release = threading.Event()

    def one(self, outcome: OutcomeRecord) -> OutcomeReceipt:
        if outcome.decision_id == "unknown":
            raise UnknownDecisionError("no decision with id 'unknown'")
        self.writing.set()
        self.release.wait(timeout=10)
        self.transactions.append(1)
        self.seqs.append(outcome.decision_id)
        return OutcomeReceipt(seq=len(self.seqs), applied=True)

    def batch(self, outcomes: Sequence[OutcomeRecord]) -> list[OutcomeReceipt]:
        if any(outcome.decision_id == "unknown" for outcome in outcomes):
            raise UnknownDecisionError("no decision with id 'unknown'")
        self.transactions.append(len(outcomes))
        start = len(self.seqs)
        self.seqs.extend(outcome.decision_id for outcome in outcomes)
        return [OutcomeReceipt(seq=start + i + 1, applied=True) for i in range(len(outcomes))]


def post_while_the_first_is_written(
    log: SlowLog, group: GroupCommit, names: list[str]
) -> dict[str, OutcomeReceipt | BaseException]:
    """The first name is being written when the others are posted."""
    answers: dict[str, OutcomeReceipt | BaseException] = {}

    def post(name: str) -> None:
        try:
            answers[name] = group.record(OutcomeRecord(name, "user", 1.0))
        except UnknownDecisionError as error:
            answers[name] = error

    first = threading.Thread(target=post, args=(names[0],))
    first.start()
    assert log.writing.wait(timeout=10)
    others = [threading.Thread(target=post, args=(name,)) for name in names[1:]]
    for thread in others:
        thread.start()
    while len(group._queue) < len(others):  # all queued behind the leader's write
        threading.Event().wait(0.01)
    log.release.set()
    for thread in [first, *others]:
        thread.join(timeout=10)
    return answers


def test_a_lone_outcome_takes_the_one_outcome_path() -> None:
    log = SlowLog()
    log.release.set()
    group = GroupCommit(log.one, log.batch)
    assert group.record(OutcomeRecord("d1", "user", 1.0)) == OutcomeReceipt(1, True)
    assert log.transactions == [1]


def test_outcomes_posted_meanwhile_share_one_transaction() -> None:
    log = SlowLog()
    group = GroupCommit(log.one, log.batch)
    names = [f"d{index}" for index in range(6)]
    answers = post_while_the_first_is_written(log, group, names)
    assert log.transactions == [1, 5]
    assert group.batches == 1
    assert sorted(answers) == names
    assert {answer.seq for answer in answers.values() if isinstance(answer, OutcomeReceipt)} == set(
        range(1, 7)
    )


def test_a_failing_batch_is_retried_one_by_one_each_poster_gets_its_own_answer() -> None:
    log = SlowLog()
    group = GroupCommit(log.one, log.batch)
    answers = post_while_the_first_is_written(log, group, ["d0", "d1", "unknown", "d2"])
    assert isinstance(answers["unknown"], UnknownDecisionError)
    assert all(isinstance(answers[name], OutcomeReceipt) for name in ("d0", "d1", "d2"))
    assert log.transactions == [1, 1, 1]  # the batch of three failed; its two good ones went alone
    assert group.batches == 0


def test_an_error_is_raised_in_the_posting_thread() -> None:
    log = SlowLog()
    log.release.set()
    group = GroupCommit(log.one, log.batch)
    with pytest.raises(UnknownDecisionError, match="unknown"):
        group.record(OutcomeRecord("unknown", "user", 1.0))
    assert group.record(OutcomeRecord("d1", "user", 1.0)).seq == 1  # the lead was handed back
