"""A decision's history is bounded: client sources per decision, revisions per source, and
templates kept per namespace; past a bound the engine refuses, and what stood still stands."""

import threading
from dataclasses import replace
from typing import Any

import pytest

from engine.domain.config import EngineConfig
from engine.domain.records import LearnedOutcome
from engine.errors import OutcomeLimitError, TemplateError
from engine.orchestration.facade import Engine
from engine.settings import load_settings
from tests.unit.engine.conftest import TEMPLATES, World


def bounded(world: World, **limits: Any) -> Engine:
    return world.engine(config=EngineConfig(seed=5, **limits))


def path_row(engine: Engine, arm: str) -> tuple[float, float | None, int]:
    row = next(a for a in engine.arms() if (a.role, a.arm_id) == ("path", arm))
    return (row.pulls, row.mean_reward, row.outcomes)


def test_a_new_source_past_the_bound_is_refused_and_every_earlier_score_stands(
    world: World,
) -> None:
    engine = bounded(world, max_outcome_sources=3)
    decision = engine.decide("What is 2 + 2?")  # no checker, no referee: no engine outcome
    for source in ("user", " User : Ann ", "user:bob"):
        assert engine.record_outcome(decision.id, source, 0.0).applied
    before = (engine.get_decision(decision.id).outcomes, path_row(engine, decision.path.arm_id))
    with pytest.raises(OutcomeLimitError, match=r"3 client sources.*'user:eve' was not recorded"):
        engine.record_outcome(decision.id, "user:eve", 1.0)
    assert (engine.get_decision(decision.id).outcomes, path_row(engine, decision.path.arm_id)) == (
        before
    )
    # A source already there may still correct its own score, and post it again.
    corrected = engine.record_outcome(decision.id, "user:ann", 1.0, replace=True)
    assert (corrected.applied, corrected.revision) == (True, 1)
    assert not engine.record_outcome(decision.id, "user:bob", 0.0).applied


def test_the_engines_own_sources_do_not_take_a_clients_place(world: World) -> None:
    engine = bounded(world, max_outcome_sources=1, referee_audit=0)
    decision = engine.decide("What is 2 + 2?", checker=world.checker_for("What is 2 + 2?"))
    assert [o.source for o in decision.outcomes] == ["checker"]
    assert engine.record_outcome(decision.id, "user:ann", 1.0).applied
    with pytest.raises(OutcomeLimitError, match="1 client sources"):
        engine.record_outcome(decision.id, "user", 1.0)


def test_corrections_past_the_bound_are_refused_and_the_latest_stands(world: World) -> None:
    engine = bounded(world, max_outcome_revisions=3)
    decision = engine.decide("What is 2 + 2?")
    arm = decision.path.arm_id
    engine.record_outcome(decision.id, "user", 0.0)
    engine.record_outcome(decision.id, "user", 1.0, replace=True)
    engine.record_outcome(decision.id, "user", 0.0, replace=True)
    assert path_row(engine, arm) == (1.0, 0.0, 1)
    with pytest.raises(OutcomeLimitError, match=r"at most 3 scores .*its latest score stands"):
        engine.record_outcome(decision.id, "user", 1.0, replace=True)
    assert path_row(engine, arm) == (1.0, 0.0, 1)
    assert [o.revision for o in engine.get_decision(decision.id).outcomes] == [0, 1, 2]
    # The standing value posted again changes nothing, and is no new row: not refused.
    assert not engine.record_outcome(decision.id, "user", 0.0, replace=True).applied


def test_many_posts_leave_a_decision_within_its_bounds(world: World) -> None:
    """The issue's probe, scaled down: many sources and many corrections on one decision."""
    engine = world.engine()
    limits = EngineConfig()
    decision = engine.decide("What is 2 + 2?")
    refused = 0
    for n in range(60):
        for source in ("user", f"user:u{n}"):
            try:
                engine.record_outcome(decision.id, source, float(n % 2), replace=True)
            except OutcomeLimitError:
                refused += 1
    outcomes = engine.get_decision(decision.id).outcomes
    assert len({o.source for o in outcomes}) == limits.max_outcome_sources
    assert max(o.revision for o in outcomes) == limits.max_outcome_revisions - 1
    assert len(outcomes) == limits.max_outcome_sources + limits.max_outcome_revisions - 1
    # Refused: every new source from the 17th on (u15..u59), and each later correction of
    # "user" that differs from its standing 1.0 (n = 16, 18, ..., 58); the same value again
    # is no new row, and is not refused.
    assert refused == 45 + 22


def test_posts_racing_for_a_decisions_last_places_take_no_more(world: World) -> None:
    """The bound is checked in the store's write, not on a read made before it: threads posting
    new sources at once cannot pass it (they could, one each, when the engine read first)."""
    engine = bounded(world, max_outcome_sources=3)
    decision = engine.decide("What is 2 + 2?")
    start, taken, refused = threading.Barrier(12), [], []

    def post(n: int) -> None:
        start.wait()
        try:
            taken.append(engine.record_outcome(decision.id, f"user:u{n}", 1.0))
        except OutcomeLimitError:
            refused.append(n)

    workers = [threading.Thread(target=post, args=(n,)) for n in range(12)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert (len(taken), len(refused)) == (3, 9)
    assert len(engine.get_decision(decision.id).outcomes) == 3


def spied_reads(world: World, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """Every read of decisions' histories (`Store.outcomes_of`) from now on, as it is made."""
    reads: list[tuple[str, ...]] = []
    history = world.store.outcomes_of

    def outcomes_of(*decision_ids: str, **options: bool) -> list[LearnedOutcome]:
        reads.append(decision_ids)
        return history(*decision_ids, **options)

    monkeypatch.setattr(world.store, "outcomes_of", outcomes_of)
    return reads


def test_a_first_score_reads_no_history_before_its_write(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = bounded(world)
    decision = engine.decide("What is 2 + 2?")  # remembered: learning it reads nothing either
    reads = spied_reads(world, monkeypatch)
    assert engine.record_outcome(decision.id, "user", 1.0).applied
    assert not engine.record_outcome(decision.id, "user", 1.0).applied  # a repost: its receipt
    assert reads == []


def test_a_correction_reads_no_history_before_its_write(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store finds a correction's revision and the standing value in its write (the engine
    once read the decision's outcomes first: a round trip more on PostgreSQL)."""
    engine = bounded(world, max_outcome_revisions=3)
    decision = engine.decide("What is 2 + 2?")
    reads = spied_reads(world, monkeypatch)
    first = engine.record_outcome(decision.id, "user:ann", 1.0, replace=True)  # nothing to correct
    assert (first.applied, first.revision, first.roles) == (
        True,
        0,
        ["path", "tool", "seed", "model"],
    )
    corrected = engine.record_outcome(decision.id, "user:ann", 0.0, replace=True)
    assert (corrected.applied, corrected.revision, corrected.seq) == (True, 1, first.seq + 1)
    same = engine.record_outcome(decision.id, "user:ann", 0.0, replace=True)
    assert (same.applied, same.revision, same.seq) == (False, 1, corrected.seq)
    engine.record_outcome(decision.id, "user:ann", 1.0, replace=True)
    with pytest.raises(OutcomeLimitError, match="at most 3 scores"):
        engine.record_outcome(decision.id, "user:ann", 0.0, replace=True)
    assert reads == []


def test_the_bounds_have_one_source_of_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    names = ("MAX_OUTCOME_SOURCES", "MAX_OUTCOME_REVISIONS", "MAX_TEMPLATES_KEPT")
    for name in names:
        monkeypatch.delenv(f"THINKPATH_{name}", raising=False)
    shipped, config = EngineConfig(), load_settings().engine_config()
    for field in ("max_outcome_sources", "max_outcome_revisions", "max_templates_kept"):
        assert getattr(config, field) == getattr(shipped, field)
    monkeypatch.setenv("THINKPATH_MAX_OUTCOME_SOURCES", "2")
    assert load_settings().engine_config().max_outcome_sources == 2


def test_templates_kept_live_and_retired_are_bounded_and_retiring_stays_open(
    world: World,
) -> None:
    engine = bounded(world, max_templates_kept=5)  # three built in
    for n in range(2):  # retire-and-add cycles
        engine.add_template(replace(TEMPLATES[0], id=f"cycle-{n}", name=f"Cycle {n}"))
        engine.retire_template(f"cycle-{n}", "superseded")
    with pytest.raises(TemplateError, match=r"keeps 5 templates \(3 live, 2 retired.*cap is 5"):
        engine.add_template(replace(TEMPLATES[0], id="one-more", name="One more"))
    assert len(engine.templates()) == 5
    assert engine.retire_template("ramble", "never right").retired  # retiring is never refused
    restarted = world.engine(config=EngineConfig(seed=5, max_templates_kept=5))
    with pytest.raises(TemplateError, match="THINKPATH_MAX_TEMPLATES_KEPT"):
        restarted.add_template(replace(TEMPLATES[0], id="again", name="Again"))
