"""Retired paths past the newest `KEEP_RETIRED` are archived: no wall on templates closes for good,
and the learner's tables stay bounded however many templates and detours are retired."""

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

import pytest

from engine.adapters.store.sql import SqlStore
from engine.domain.config import DetourRules, EngineConfig
from engine.domain.records import ArmRecord, PathDefinition
from engine.errors import TemplateError, UnknownArmError
from engine.orchestration import arm_book
from engine.orchestration.facade import Engine
from tests.unit.engine.conftest import TEMPLATES, World
from tests.unit.engine.test_one_book import learned_state

KEEP = arm_book.KEEP_RETIRED


def store_for(world: World, backend: str, tmp_path: Path) -> Any:
    return world.store if backend == "memory" else SqlStore(f"sqlite:///{tmp_path / 's.db'}")


def retired_rows(engine: Engine) -> list[str]:
    return [a.arm_id for a in engine.arms() if a.role == "path" and a.retired]


def cycle(engine: Engine, n: int) -> None:
    engine.add_template(replace(TEMPLATES[0], id=f"cycle-{n}", name=f"Cycle {n}"))
    engine.retire_template(f"cycle-{n}", "superseded")


@pytest.mark.parametrize("backend", ["memory", "sqlite"])
def test_a_template_can_still_be_added_after_1000_add_and_retire_cycles(
    world: World, tmp_path: Path, backend: str
) -> None:
    store = store_for(world, backend, tmp_path)
    config = EngineConfig(seed=5, max_templates_kept=KEEP + 8)  # a wall close by
    engine = world.engine(config=config, store=store)
    for n in range(500):
        cycle(engine, n)
    engine = world.engine(config=config, store=store)  # a restart in between
    for n in range(500, 1000):
        cycle(engine, n)
    engine.add_template(replace(TEMPLATES[0], id="still-open", name="Still open"))
    engine.refresh()
    assert len(engine.templates()) == 3 + KEEP + 1  # the 3 built in, the newest retired, one
    assert retired_rows(engine) == [f"cycle-{n}" for n in range(1000 - KEEP, 1000)]
    assert len(engine._book._learner.retired) == KEEP  # the memory it keeps is bounded
    for taken in ("cycle-0", "cycle_0", "cycle-999"):  # an archived id stays taken
        with pytest.raises(TemplateError, match="exists already"):
            engine.add_template(replace(TEMPLATES[0], id=taken, name="Again"))
    with pytest.raises(UnknownArmError, match="archived"):
        engine.retire_template("cycle-5", "again")
    assert engine.retire_template("cycle-999", "again").retired  # kept: retired, no change
    replica = world.engine(config=config, store=store)  # a second process on the same store
    assert replica.arms() == engine.arms()
    assert replica._book.known_path_ids() == engine._book.known_path_ids()


@pytest.mark.parametrize("checkpoint_every", [0, 3])
@pytest.mark.parametrize("backend", ["memory", "sqlite"])
def test_a_late_outcome_for_an_archived_path_counts_in_no_statistics_and_replays_the_same(
    world: World, tmp_path: Path, backend: str, checkpoint_every: int, monkeypatch: Any
) -> None:
    monkeypatch.setattr(arm_book, "KEEP_RETIRED", 2)
    store = store_for(world, backend, tmp_path)
    config = EngineConfig(
        seed=5, detour=DetourRules(prob_best_floor=0.0), checkpoint_every=checkpoint_every
    )
    engine = world.engine(config=config, store=store)
    engine.add_template(replace(TEMPLATES[0], id="late", name="Late"))
    decision = engine.decide("What is 2 + 3?", force_path="late")
    engine.record_outcome(decision.id, "user:ann", 1.0)
    assert ("path", "late") in engine._book._learner.tallies
    engine.retire_template("late", "superseded")
    for n in range(3):  # three newer retired: "late" is archived
        cycle(engine, n)
        engine.decide(f"What is {n} + 1?")  # outcomes between the cycles, for the checkpoints
    assert "late" not in {a.arm_id for a in engine.arms()}
    tool = [a for a in engine.arms() if a.role == "tool" and a.outcomes]
    assert [(a.outcomes, a.mean_reward) for a in tool] == [(1, 1.0)]  # ann's 1.0
    corrected = engine.record_outcome(decision.id, "user:ann", 0.0, replace=True)
    assert corrected.applied  # recognised: the decision's other roles learn from it
    engine.record_outcome(decision.id, "user:bob", 0.5)
    assert ("path", "late") not in engine._book._learner.tallies
    assert "late" not in {a.arm_id for a in engine.arms()}
    tool = [a for a in engine.arms() if a.role == "tool" and a.outcomes]
    assert [a.outcomes for a in tool] == [1]  # one decision, its score in force
    assert tool[0].mean_reward != 1.0  # ann's correction reached the roles still kept
    restarted = world.engine(config=config, store=store)
    assert statistics(restarted) == statistics(engine)
    assert restarted.arms() == engine.arms()
    with pytest.raises(TemplateError, match="exists already"):
        restarted.add_template(replace(TEMPLATES[0], id="late", name="Late again"))


def statistics(engine: Engine) -> dict[str, Any]:
    """What `learned_state` holds but the path policy: a replay that starts with an arm retired
    already leaves an empty context row out of a pooled path policy that a live engine keeps
    after the arm's outcomes are taken out (so it is with a retirement alone, archived or not;
    a restart from a checkpoint holds the live engine's rows)."""
    state = learned_state(engine)
    state["policies"].pop("path")
    return state


def detour(n: int) -> PathDefinition:
    return PathDefinition(f"detour-{n}", f"Detour {n}", "d", "STRATEGY=D\n{query}", "detour")


def test_many_retired_detours_leave_bounded_tables(world: World) -> None:
    engine = world.engine()
    book = engine._book
    for n in range(200):
        book.add_detours([detour(n)], "a test")
        decision = engine.decide(f"What is {n} + 4?", force_path=f"detour-{n}")
        engine.record_outcome(decision.id, "user", 0.0)
        engine.retire_template(f"detour-{n}", "keeps failing")
    engine.refresh()
    learner = book._learner
    assert len(learner.retired) == KEEP
    assert len(learner.tallies) <= KEEP + 3 + 8  # kept retired, the templates, tools, seeds
    assert len(book._paths) == 3 + KEEP
    assert "detour-0" in book.known_path_ids()  # an archived id a new detour must not reuse
    replica = world.engine()
    assert replica.arms() == engine.arms()
    assert statistics(replica) == statistics(engine)


def test_a_detour_the_learner_retires_is_archived_everywhere(
    world: World, monkeypatch: Any
) -> None:
    monkeypatch.setattr(arm_book, "KEEP_RETIRED", 0)  # every retired path archived at once
    rules = DetourRules(prob_best_floor=0.0, failure_streak=2, retire_min_pulls=2, retire_below=0.3)
    config = EngineConfig(seed=3, detour=rules)
    engine = world.engine(config=config, cold_pulls=1)
    query = "What is the sum 3 + 4?"
    decisions = [engine.decide(query, checker=lambda _text: 0.0) for _ in range(14)]
    retired = {
        step.inputs["arm"] for d in decisions for step in d.trace if step.reason == "retired"
    }
    assert retired, "a detour that keeps failing is retired"
    engine.refresh()
    assert not retired & {a.arm_id for a in engine.arms()}
    assert not engine._book._learner.retired
    assert retired <= engine._book.known_path_ids()
    replica = world.engine(config=config, cold_pulls=1)
    assert replica.arms() == engine.arms()
    assert statistics(replica) == statistics(engine)


def test_the_archive_rule_is_the_oldest_created_retired_paths() -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)

    def record(
        arm: str, minute: int, retired: bool, origin: Literal["template", "detour"] = "template"
    ) -> ArmRecord:
        created = start + timedelta(minutes=minute)
        return ArmRecord("ns", "path", arm, origin, {}, created, created if retired else None)

    records = [
        record("b", 2, True),
        record("a", 1, True, "detour"),
        record("c", 3, False),
        record("d", 4, True),
        ArmRecord("ns", "tool", "t", "tool", {}, start, start),
    ]
    assert arm_book.archived_paths(records, 1) == {"a", "b"}
    assert arm_book.archived_paths(records, 2) == {"a"}
    assert arm_book.archived_paths(reversed(records), 2) == {"a"}  # whatever the listing order
    assert arm_book.archived_paths(records, 3) == set()


@pytest.mark.parametrize("checkpoint_every", [0, 2])
def test_an_archived_built_in_template_stays_archived_after_a_restart(
    world: World, monkeypatch: Any, checkpoint_every: int
) -> None:
    monkeypatch.setattr(arm_book, "KEEP_RETIRED", 1)
    config = EngineConfig(seed=5, checkpoint_every=checkpoint_every)
    engine = world.engine(config=config)
    engine.decide("What is 1 + 1?", force_path="ramble")
    engine.retire_template("ramble", "never right")  # a template the configuration still names
    cycle(engine, 0)
    for n in range(3):
        engine.decide(f"What is {n} + 2?")
    restarted = world.engine(config=config)  # built with "ramble" among its templates
    for process in (engine, restarted):
        process.refresh()
        assert "ramble" not in {a.arm_id for a in process.arms()}
        assert "ramble" not in {t.arm_id for t in process.templates()}
        assert "ramble" not in process._book.live_paths()
        with pytest.raises(TemplateError, match="exists already"):
            process.add_template(replace(TEMPLATES[0], id="ramble", name="Ramble again"))
    assert restarted.arms() == engine.arms()
    assert restarted.decide("What is 7 + 2?").path.arm_id != "ramble"
