"""Policies learn only from outcomes, one in force per decision, in every process alike."""

import math

import pytest

from engine.errors import InvalidRewardError, OutcomeConflictError, UnknownDecisionError
from tests.unit.engine.conftest import REFEREE_OPT_IN

ARITHMETIC = "What is the sum 3 + 4?"
SPELLING = "What is the first letter of apple?"


class CountingPolicy:
    """Wraps a policy and counts the updates it receives."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.updates: list[tuple[str, float, float]] = []

    def __getattr__(self, name: str):
        return getattr(self.inner, name)

    @property
    def arms(self) -> list[str]:
        arms: list[str] = self.inner.arms
        return arms

    @property
    def is_contextual(self) -> bool:
        contextual: bool = self.inner.is_contextual
        return contextual

    def update(self, arm, reward, context=None, weight=1.0) -> None:
        self.updates.append((arm, reward, weight))
        self.inner.update(arm, reward, context=context, weight=weight)

    def retract(self, arm, reward, context=None, weight=1.0) -> None:
        self.updates.append((arm, reward, -weight))  # an update taken back: negative weight
        self.inner.retract(arm, reward, context=context, weight=weight)


def counting_engine(world, referee_weight=None, rating=False):
    counters = {}
    base = world.policy_factory()

    def factory(role, arms, dim):
        counters[role] = CountingPolicy(base(role, arms, dim))
        return counters[role]

    engine = world.engine(policy_factory=factory, referee_weight=referee_weight, rating=rating)
    return engine, counters


def test_ratings_never_update_a_policy(world) -> None:
    world.rating_favourite = "ramble"  # the model loves the useless path
    world.overrides["referee"] = lambda request: "no verdict"  # so no outcome arrives at all
    engine, counters = counting_engine(world, rating=True)
    engine.decide(ARITHMETIC)  # a kind's first decision is not rated (it makes one call)
    for _ in range(5):
        decision = engine.decide(ARITHMETIC)
        assert decision.step("rating").outputs["scores"]["ramble"] == 5
    assert counters["path"].updates == []
    assert counters["tool"].updates == []
    assert all(row.pulls == 0 for row in engine.arms())


def test_each_outcome_updates_each_role_once(world) -> None:
    engine, counters = counting_engine(world)
    decision = engine.decide(ARITHMETIC, checker=lambda text: 1.0)
    assert counters["path"].updates == [(decision.path.arm_id, 1.0, 1.0)]
    assert counters["tool"].updates == [("none", 1.0, 1.0)]


def test_the_same_outcome_twice_is_applied_once(world) -> None:
    engine, counters = counting_engine(world, referee_weight=REFEREE_OPT_IN)
    decision = engine.decide(ARITHMETIC)  # the referee scores it (1.0 at weight 0.5)
    first = engine.record_outcome(decision.id, "user", 0.0)
    again = engine.record_outcome(decision.id, "user", 0.0)
    assert (first.applied, again.applied) == (True, False)
    assert first.seq == again.seq
    # The user's score replaces the referee's, once: the referee's share out, the user's in.
    arm = decision.path.arm_id
    assert counters["path"].updates == [(arm, 1.0, 0.5), (arm, 1.0, -0.5), (arm, 0.0, 1.0)]
    with pytest.raises(OutcomeConflictError, match="replace=True"):
        engine.record_outcome(decision.id, "user", 1.0)
    assert len(counters["path"].updates) == 3


def test_an_exact_checker_outranks_a_user(world) -> None:
    engine, counters = counting_engine(world)
    decision = engine.decide(ARITHMETIC, checker=lambda text: 1.0)
    engine.record_outcome(decision.id, "user", 0.0)
    assert [u[1] for u in counters["path"].updates] == [1.0]  # kept in the log, teaches nothing
    assert len(world.store.outcomes_of(decision.id)) == 2


def test_each_source_is_recorded_and_a_users_score_replaces_the_referees(world) -> None:
    engine = world.engine(referee_weight=REFEREE_OPT_IN)
    decision = engine.decide(ARITHMETIC)  # referee only: no checker, and opted in
    assert [(o.source, o.weight) for o in decision.outcomes] == [("referee", 0.5)]
    late = engine.record_outcome(decision.id, "user", 0.25, weight=0.8)
    assert (late.source, late.reward, late.weight, late.roles) == (
        "user",
        0.25,
        0.8,
        ["path", "tool", "seed", "model"],
    )
    learned = world.store.outcomes_since("default", 0)
    assert [(o.source, o.reward, o.weight) for o in learned] == [
        ("referee", 1.0, 0.5),
        ("user", 0.25, 0.8),
    ]
    tally = next(r for r in engine.arms() if r.arm_id == decision.path.arm_id)
    assert (tally.pulls, tally.mean_reward, tally.outcomes) == (0.8, 0.25, 1)


@pytest.mark.parametrize(("reward", "weight"), [(math.nan, None), (1.5, None), (0.5, 0.0)])
def test_a_bad_outcome_is_refused_and_nothing_changes(world, reward, weight) -> None:
    engine = world.engine()
    decision = engine.decide(ARITHMETIC)
    before = [(r.arm_id, r.pulls) for r in engine.arms()]
    with pytest.raises(InvalidRewardError):
        engine.record_outcome(decision.id, "user", reward, weight)
    assert [(r.arm_id, r.pulls) for r in engine.arms()] == before


def test_an_unknown_decision_is_a_clear_error(world) -> None:
    with pytest.raises(UnknownDecisionError, match="no decision with id 'nope'"):
        world.engine().record_outcome("nope", "user", 1.0)


def test_a_reward_hours_later_from_another_process_is_learned_by_all(world) -> None:
    first = world.engine(referee_weight=REFEREE_OPT_IN)
    second = world.engine(referee_weight=REFEREE_OPT_IN)
    decision = first.decide(ARITHMETIC)  # the referee scores it 1.0 at weight 0.5
    second.record_outcome(decision.id, "user", 0.0)  # the "later" reward, posted elsewhere
    first.refresh()
    stats = {(r.role, r.arm_id): (r.pulls, r.mean_reward) for r in first.arms()}
    assert stats == {(r.role, r.arm_id): (r.pulls, r.mean_reward) for r in second.arms()}
    assert stats[("path", decision.path.arm_id)] == (1.0, 0.0)  # the user's replaced it


def test_a_contextual_policy_learns_a_different_best_path_per_family(world) -> None:
    """A simulated run with an exact checker: digits wins arithmetic, letters wins spelling."""
    engine = world.engine()
    queries = [f"What is the sum {i} + {i + 2}?" for i in range(30)]
    words = ["apple", "banana", "cherry", "damson", "elder", "fig"] * 5
    spelling = [f"What is the first letter of {word}?" for word in words]
    correct_late = []
    for step, (a, s) in enumerate(zip(queries, spelling, strict=True)):
        for query in (a, s):
            decision = engine.decide(query, checker=world.checker_for(query))
            if step >= 20:
                correct_late.append(decision.outcomes[0].reward)
    best = {}
    for query in (ARITHMETIC, SPELLING):
        rows = [r for r in engine.arms(query) if r.role == "path"]
        best[query] = max(rows, key=lambda r: r.prob_best or 0.0).arm_id
    assert best == {ARITHMETIC: "digits", SPELLING: "letters"}
    assert sum(correct_late) / len(correct_late) >= 0.8
