"""Each decision's evidence lives in the store, read when its outcomes arrive; checkpoints hold
the policies' statistics alone, so they do not grow with the log (`engine.orchestration.ledger`).
"""

import json
import random
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from engine.domain.config import DetourRules, EngineConfig
from engine.domain.records import LearnedOutcome
from engine.orchestration.facade import Engine
from engine.orchestration.ledger import EvidenceLedger
from tests.unit.engine.conftest import TEMPLATES, World
from tests.unit.engine.test_checkpoints import ReplaySpy

ARITHMETIC = "What is the sum 3 + 4?"
SPELLING = "What is the first letter of apple?"
ROLES = ("path", "tool", "seed", "model")


def config(**changes: Any) -> EngineConfig:
    fields: dict[str, Any] = {"seed": 5, "detour": DetourRules(prob_best_floor=0.0)}
    return EngineConfig(**(fields | changes))


def leaves(value: Any) -> int:
    """How many numbers and strings a JSON value holds: its size, whatever their digits."""
    if isinstance(value, dict):
        return sum(leaves(item) for item in value.values()) + len(value)
    if isinstance(value, list):
        return sum(leaves(item) for item in value)
    return 1


def test_a_checkpoint_holds_no_decision_and_does_not_grow_with_the_outcomes(
    world: World,
) -> None:
    engine = world.engine(config=config(checkpoint_every=10), tools=True)
    fingerprint = engine._book._checkpoints._fingerprint
    sizes, decisions = [], []
    for _ in range(4):
        for index in range(30):
            query = ARITHMETIC if index % 2 else SPELLING
            decision = engine.decide(query, checker=world.checker_for(query))
            engine.record_outcome(decision.id, "user", float(index % 3 == 0))
            decisions.append(decision.id)
        saved = world.store.latest_checkpoint("default", fingerprint)
        assert saved is not None
        sizes.append(leaves(saved.state))
        text = json.dumps(saved.state)
        assert not [d for d in decisions if d in text]  # no decision's evidence in it
    # 60 more outcomes between each: the first round met every arm, the rest add nothing
    assert sizes[1] == sizes[2] == sizes[3]


class Log:
    """A store's outcome log read by decision, counting the reads (the ledger's `history`)."""

    def __init__(self) -> None:
        self.outcomes: list[LearnedOutcome] = []
        self.reads: list[str] = []

    def add(self, decision_id: str, source: str, reward: float, weight: float = 1.0) -> Any:
        outcome = LearnedOutcome(
            seq=len(self.outcomes) + 1,
            decision_id=decision_id,
            namespace="default",
            choices={"path": "a", "tool": "none"},
            context=None,
            source=source,
            reward=reward,
            weight=weight,
        )
        self.outcomes.append(outcome)
        return outcome

    def history(self, decision_ids: Sequence[str]) -> list[LearnedOutcome]:
        self.reads.extend(decision_ids)
        return [o for o in self.outcomes if o.decision_id in decision_ids]


def test_a_decision_the_ledger_forgot_is_read_back_from_the_store() -> None:
    log = Log()
    ledger = EvidenceLedger(log.history, remembered=1)
    ledger.record(log.add("d1", "user", 0.0), ROLES)
    ledger.record(log.add("d2", "checker", 1.0), ROLES)  # d1 is forgotten now
    ledger.record(log.add("d2", "user", 0.0), ROLES)  # d2 is remembered: no read
    assert log.reads == ["d1", "d2"]
    change = ledger.record(log.add("d1", "user#1", 1.0), ROLES)  # a correction of d1's user
    assert log.reads == ["d1", "d2", "d1"]
    old, new = change.roles["path"]
    assert old is not None
    assert new is not None
    assert (old.source, old.reward, old.first_seq) == ("user", 0.0, 1)
    assert (new.source, new.reward, new.first_seq) == ("user", 1.0, 1)  # it keeps its place


def test_a_decisions_later_outcomes_in_the_store_are_not_read_as_earlier_ones() -> None:
    log = Log()
    first = log.add("d1", "referee", 0.5)
    log.add("d1", "checker", 1.0)  # committed, not yet replayed
    change = EvidenceLedger(log.history).record(first, ROLES)
    assert change.roles["path"] == (None, change.roles["path"][1])  # the first evidence
    assert change.audit == (None, None)  # the checker's score is not yet in the audit pair


@pytest.mark.parametrize("seed", range(5))
def test_what_the_ledger_remembers_never_changes_what_it_says(seed: int) -> None:
    """A ledger that remembers one decision says what one that remembers them all says, on a
    log of several sources per decision, corrections and engine scores, in any order."""
    rng = random.Random(seed)
    log = Log()
    forgetful, mindful = EvidenceLedger(log.history, remembered=1), EvidenceLedger(log.history)
    revisions: dict[tuple[str, str], int] = {}
    for _ in range(300):
        decision = f"d{rng.randrange(12)}"
        source = rng.choice(["user", "user:ann", "user:bob", "checker", "referee", "tool"])
        revision = revisions.get((decision, source), -1) + 1
        if revision and source not in ("user", "user:ann", "user:bob"):
            continue  # the engine's own sources score a decision once
        revisions[(decision, source)] = revision
        key = source if revision == 0 else f"{source}#{revision}"
        outcome = log.add(decision, key, rng.choice([0.0, 0.25, 1.0]), rng.choice([0.5, 1.0]))
        assert forgetful.record(outcome, ROLES) == mindful.record(outcome, ROLES)
    assert len(set(log.reads)) == 12  # the forgetful one read decisions back from the log


@pytest.mark.parametrize("seed", range(5))
def test_reading_a_batch_ahead_never_changes_what_the_ledger_says(seed: int) -> None:
    """A ledger fed batches, each read ahead in one read of the decisions it does not hold (the
    batch's later outcomes in the store too, and decisions forgotten within it), says what one
    that remembers every decision says."""
    rng = random.Random(seed)
    log = Log()
    for _ in range(300):
        decision = f"d{rng.randrange(12)}"
        source = rng.choice(["user", "user:ann", "checker", "referee"])
        taken = sum(o.decision_id == decision and o.source.startswith(source) for o in log.outcomes)
        if taken and source in ("checker", "referee"):
            continue
        key = source if not taken else f"{source}#{taken}"
        log.add(decision, key, rng.choice([0.0, 0.25, 1.0]), rng.choice([0.5, 1.0]))
    reading, mindful = EvidenceLedger(log.history, remembered=3), EvidenceLedger(log.history)
    first = 0
    while first < len(log.outcomes):
        batch = log.outcomes[first : first + rng.randrange(1, 40)]
        first += len(batch)
        reads = len(log.reads)
        stored = reading.read_ahead(batch)
        missing = {o.decision_id for o in batch} - set(log.reads[:reads])  # never read before
        assert missing <= set(stored)
        for outcome in batch:
            assert reading.record(outcome, ROLES, stored) == mindful.record(outcome, ROLES)


def test_a_batch_of_outcomes_reads_its_decisions_histories_once(world: World) -> None:
    """Outcomes of decisions this engine did not make are learned with one read of their earlier
    outcomes for the whole batch, not one per decision (a round trip each, under the book's
    lock, which serialised every thread posting outcomes)."""
    spy = HistorySpy(world.store)
    engine = world.engine(config=config(), store=spy)
    other = world.engine(config=config())  # another process decides and hears the outcomes
    decisions = [other.decide(ARITHMETIC if n % 2 else SPELLING).id for n in range(8)]
    for number, decision_id in enumerate(decisions):
        other.record_outcome(decision_id, "user", float(number % 2))
    other.record_outcome(decisions[0], "user:ann", 1.0)
    other.record_outcome(decisions[0], "user", 1.0, replace=True)
    assert engine.refresh() == 10
    assert spy.reads == 1
    assert sorted(spy.read) == sorted(decisions)
    assert {(r.arm_id, r.outcomes) for r in engine.arms() if r.role == "path"} == {
        (r.arm_id, r.outcomes) for r in other.arms() if r.role == "path"
    }
    assert [r.mean_reward for r in engine.arms()] == [r.mean_reward for r in other.arms()]


def test_a_correction_after_a_restart_from_a_checkpoint_replaces_the_score(world: World) -> None:
    engine = world.engine(config=config(checkpoint_every=1))
    decision = engine.decide(ARITHMETIC)
    engine.record_outcome(decision.id, "user", 0.0)
    for _ in range(5):
        engine.decide(SPELLING, checker=world.checker_for(SPELLING))
    user_seq = world.store.outcomes_of(decision.id)[-1].seq
    spy = ReplaySpy(world.store)
    restarted: Engine = world.engine(config=config(checkpoint_every=1), store=spy)
    assert spy.replay_starts[0] > user_seq  # the user's score came from the checkpoint's seq
    arm = ("path", decision.path.arm_id)
    before = next(r for r in restarted.arms() if (r.role, r.arm_id) == arm)
    restarted.record_outcome(decision.id, "user", 1.0, replace=True)
    after = next(r for r in restarted.arms() if (r.role, r.arm_id) == arm)
    # the correction replaced the user's 0.0: the same decisions and pulls, a higher mean
    assert (after.outcomes, after.pulls) == (before.outcomes, before.pulls)
    assert after.mean_reward == pytest.approx((before.mean_reward or 0.0) + 1.0 / before.pulls)
    replayed = world.engine(config=config(), store=ReplaySpy(world.store, hide_checkpoints=True))
    assert restarted.arms() == replayed.arms()  # as a replay of the whole log has it


class CatalogueSpy(ReplaySpy):
    """The store, counting how often the arm catalogue is read."""

    def __init__(self, store: Any) -> None:
        super().__init__(store)
        self.catalogue_reads = 0

    def list_arms(self, namespace: str) -> Any:
        self.catalogue_reads += 1
        return self.store.list_arms(namespace)


def test_learning_an_outcome_reads_the_catalogue_only_for_a_path_it_does_not_know(
    world: World,
) -> None:
    spy = CatalogueSpy(world.store)
    engine = world.engine(config=config(), store=spy)
    decisions = [engine.decide(ARITHMETIC) for _ in range(3)]
    reads = spy.catalogue_reads
    for decision in decisions:
        engine.record_outcome(decision.id, "user", 1.0)
    assert spy.catalogue_reads == reads  # every path named is known here
    # another process adds a template and decides with it; this one only records the outcome
    other = world.engine(config=config())
    other.add_template(replace(TEMPLATES[0], id="extra", name="Extra"))
    added = other.decide(ARITHMETIC, force_path="extra")
    engine.record_outcome(added.id, "user", 1.0)
    assert spy.catalogue_reads == reads + 1
    row = next(r for r in engine.arms() if (r.role, r.arm_id) == ("path", "extra"))
    assert (row.outcomes, row.mean_reward) == (1, 1.0)  # learned, not skipped as unknown


class HistorySpy(ReplaySpy):
    """The store, recording which decisions' outcomes are read back."""

    def __init__(self, store: Any) -> None:
        super().__init__(store)
        self.read: list[str] = []  # the decisions read, one entry per decision named
        self.reads = 0  # calls: each is one round trip

    def outcomes_of(self, *decision_ids: str, **options: bool) -> Any:
        self.read.extend(decision_ids)
        self.reads += 1
        return self.store.outcomes_of(*decision_ids, **options)


def test_a_decision_made_here_is_learned_without_reading_its_outcomes_back(world: World) -> None:
    spy = HistorySpy(world.store)
    engine = world.engine(config=config(), store=spy)
    decision = engine.decide(ARITHMETIC, checker=world.checker_for(ARITHMETIC))
    engine.record_outcome(decision.id, "user", 0.0)
    # no read: the store checks the bounds in its write (`OutcomeRecord.max_sources`), and the
    # ledger knew this decision had nothing before the checker's outcome
    assert spy.read == []
    elsewhere = world.engine(config=config()).decide(SPELLING)  # another process decided
    engine.record_outcome(elsewhere.id, "user", 1.0)
    # that one may have outcomes this ledger never saw: the ledger reads it, once
    assert spy.read == [elsewhere.id]
