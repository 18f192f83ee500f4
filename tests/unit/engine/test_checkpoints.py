"""A checkpoint plus the outcomes after it gives the learner a full replay gives, arm for arm."""

import logging
from typing import Any

import numpy as np
import pytest

from engine.adapters.store.memory import InMemoryStore
from engine.domain.config import DetourRules, EngineConfig
from engine.domain.records import CheckpointRecord
from engine.orchestration.checkpoints import fingerprint
from engine.orchestration.facade import Engine
from learning import make_policy

ARITHMETIC = "What is the sum 3 + 4?"
SPELLING = "What is the first letter of apple?"
EVERY = 7


class ReplaySpy:
    """A store that records where each replay starts, and can hide its checkpoints."""

    def __init__(self, store: InMemoryStore, *, hide_checkpoints: bool = False) -> None:
        self.store = store
        self.hide_checkpoints = hide_checkpoints
        self.replay_starts: list[int] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    def outcomes_since(self, namespace: str, after_seq: int, limit: int = 10_000) -> Any:
        self.replay_starts.append(after_seq)
        return self.store.outcomes_since(namespace, after_seq, limit)

    def latest_checkpoint(self, namespace: str, fingerprint: str) -> CheckpointRecord | None:
        return (
            None if self.hide_checkpoints else self.store.latest_checkpoint(namespace, fingerprint)
        )

    def save_checkpoint(self, checkpoint: CheckpointRecord) -> None:
        if not self.hide_checkpoints:
            self.store.save_checkpoint(checkpoint)


def config(every: int = EVERY) -> EngineConfig:
    return EngineConfig(seed=5, detour=DetourRules(prob_best_floor=0.0), checkpoint_every=every)


def engine_on(world: Any, store: Any, **changes: Any) -> Engine:
    engine: Engine = world.engine(config=config(), tools=True, store=store, **changes)
    return engine


def learned(engine: Engine) -> dict[str, Any]:
    """The learner's state; the order in which retirements and tallies were met is no state."""
    state = engine._book._learner.state()
    return {**state, "retired": sorted(state["retired"]), "tallies": sorted(state["tallies"])}


def by_arm(engine: Engine, query: str | None = None) -> dict[tuple[str, str], Any]:
    return {(row.role, row.arm_id): row for row in engine.arms(query)}


def learn(world: Any, engine: Engine, decisions: int) -> None:
    """Decide on both kinds of query, with a later user reward on every third decision."""
    for index in range(decisions):
        query = ARITHMETIC if index % 2 else SPELLING
        decision = engine.decide(query, checker=world.checker_for(query))
        if index % 3 == 0:
            engine.record_outcome(decision.id, "user", float(index % 2))


def linear_factory(role: str, arms: list[str], context_dim: int) -> Any:
    return make_policy("lints", arms, seed=3, context_dim=context_dim)


def keyed_factory(role: str, arms: list[str], context_dim: int) -> Any:
    return make_policy("thompson", arms, seed=3, context_dim=context_dim)  # a KeyedPolicy


# "shipped": the world's factory, the default policies (`pooled_thompson` for path and tool,
# keyed `thompson` for the seed role); then one keyed and one linear policy in every role.
@pytest.mark.parametrize("kind", ["shipped", "keyed", "contextual"])
def test_a_checkpoint_plus_the_tail_equals_a_full_replay_arm_for_arm(world: Any, kind: str) -> None:
    factory = {"shipped": None, "keyed": keyed_factory, "contextual": linear_factory}[kind]
    learn(world, engine_on(world, world.store, policy_factory=factory), 20)
    # One more decision from an engine that saves no checkpoint: there is always a tail.
    tail = world.engine(config=config(every=0), tools=True, policy_factory=factory)
    tail.decide(ARITHMETIC, checker=world.checker_for(ARITHMETIC))
    last_seq = world.store.outcomes_since("default", 0)[-1].seq
    restored_store = ReplaySpy(world.store)
    replayed_store = ReplaySpy(world.store, hide_checkpoints=True)
    restored = engine_on(world, restored_store, policy_factory=factory)
    replayed = engine_on(world, replayed_store, policy_factory=factory)

    checkpoint_seq = restored_store.replay_starts[0]
    assert 0 < checkpoint_seq < last_seq  # it started from a checkpoint and replayed a tail
    assert replayed_store.replay_starts[0] == 0
    assert learned(restored) == learned(replayed)  # policies (random state too), tallies
    for query in (ARITHMETIC, SPELLING):
        assert by_arm(restored, query) == by_arm(replayed, query)
        context = np.asarray(restored._kinds.peek(query))
        for role in ("path", "tool"):
            picks = [restored._book._learner.policies[role].select(context) for _ in range(8)]
            assert picks == [
                replayed._book._learner.policies[role].select(context) for _ in range(8)
            ]


def test_checkpoints_are_saved_every_n_outcomes(world: Any) -> None:
    engine = world.engine(config=config(), tools=True)
    learn(world, engine, 12)
    last_seq = world.store.outcomes_since("default", 0)[-1].seq
    saved = world.store.latest_checkpoint("default", engine._book._checkpoints._fingerprint)
    assert saved is not None
    assert last_seq - EVERY < saved.seq <= last_seq
    assert saved.state["last_seq"] == saved.seq


def test_no_checkpoint_is_saved_when_they_are_turned_off(world: Any) -> None:
    engine = world.engine(config=config(every=0), tools=True)
    learn(world, engine, 12)
    assert world.store._checkpoints == {}


def test_another_configuration_replays_the_whole_log(world: Any) -> None:
    learn(world, world.engine(config=config(), tools=True), 12)
    spy = ReplaySpy(world.store)
    engine = engine_on(world, spy, cold_pulls=5.0)  # another policy parameter
    assert spy.replay_starts[0] == 0
    assert sum(row.outcomes for row in engine.arms() if row.role == "path") > 0


def test_an_unreadable_checkpoint_is_skipped_with_a_warning(
    world: Any, caplog: pytest.LogCaptureFixture
) -> None:
    first = world.engine(config=config(every=0), tools=True)
    learn(world, first, 6)
    key = first._book._checkpoints._fingerprint
    world.store.save_checkpoint(CheckpointRecord("default", key, 3, {"last_seq": 3}))
    spy = ReplaySpy(world.store)
    with caplog.at_level(logging.WARNING, logger="engine.orchestration.checkpoints"):
        restored = engine_on(world, spy)
    assert "unreadable" in caplog.text
    assert spy.replay_starts[0] == 0
    assert by_arm(restored) == by_arm(first)


def policy(name: str, arms: list[str], **params: Any) -> Any:
    return make_policy(name, arms, seed=1, **params)


def test_the_fingerprint_follows_configuration_not_learning() -> None:
    arms = {"path": ["a", "b"], "tool": ["none"]}
    plain = {"path": policy("thompson", ["a", "b"]), "tool": policy("thompson", ["none"])}
    key = fingerprint(plain, arms, 3)
    plain["path"].update("a", 1.0)
    plain["path"].select()
    assert fingerprint(plain, arms, 3) == key  # learning and randomness do not change it
    assert fingerprint(plain, arms, 4) != key
    assert fingerprint(plain, {**arms, "path": ["a", "b", "c"]}, 3) != key
    assert fingerprint({**plain, "path": policy("ucb1", ["a", "b"])}, arms, 3) != key
    changed = {**plain, "path": policy("thompson", ["a", "b"], cold_pulls=9.0)}
    assert fingerprint(changed, arms, 3) != key
