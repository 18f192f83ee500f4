"""The referee's weight is measured against the checker: an uninformative referee counts little."""

import json
from collections import Counter

import pytest

from engine.domain.config import DetourRules, EngineConfig
from engine.domain.records import LearnedOutcome, LLMRequest
from engine.orchestration.arm_book import ArmBook
from engine.orchestration.learner import Learner
from engine.stages.referee import Reliability, audit_key, reliability
from learning import make_policy
from tests.factories import learned_outcome
from tests.unit.engine.conftest import REFEREE_OPT_IN

ARITHMETIC = "What is 3 + 4?"


def _config(audit: float) -> EngineConfig:
    return EngineConfig(
        seed=5, detour=DetourRules(prob_best_floor=0.0), referee_audit=audit, referee_prior_pairs=1
    )


def test_by_default_the_referee_never_judges_a_kind_of_query_it_was_never_measured_on(
    world,
) -> None:
    llm = world.llm()
    decision = world.engine(llm).decide(ARITHMETIC)  # the shipped config, no checker
    referee = decision.step("referee")
    assert referee.reason == "skipped"
    assert referee.outputs["reliability"]["basis"] == "prior"
    assert referee.outputs["reliability"]["weight"] == 0.0
    assert "referee" not in [request.purpose for request in llm.requests]
    assert decision.outcomes == []
    assert world.store.outcomes_since("default", 0) == []


def test_a_user_who_opts_in_gets_the_referee_at_their_weight(world) -> None:
    llm = world.llm()
    decision = world.engine(llm, config=_config(0.0), referee_weight=REFEREE_OPT_IN).decide(
        ARITHMETIC
    )
    referee = decision.step("referee")
    assert referee.reason == "done"
    assert referee.outputs["reliability"]["basis"] == "prior"
    assert [request.purpose for request in llm.requests].count("referee") == 1
    assert [(o.source, o.weight) for o in decision.outcomes] == [("referee", REFEREE_OPT_IN)]


def test_an_uninformative_referee_is_weighted_near_zero(world) -> None:
    world.referee_score = 4  # says "correct" to everything
    llm = world.llm()
    engine = world.engine(llm, config=_config(1.0))
    for _ in range(30):  # some answers right, some wrong: the checker tells them apart
        decision = engine.decide(ARITHMETIC, checker=world.checker_for(ARITHMETIC))
        if decision.step("referee").reason == "done":
            assert "audit" in decision.step("referee").outputs
    # An audit is recorded beside the checker's score, and teaches the policies nothing: every
    # path statistic is the checker's alone.
    assert [o.source for o in decision.outcomes] == ["checker", "referee"]
    checked = [o for o in world.store.outcomes_since("default", 0) if o.source == "checker"]
    paths = [row for row in engine.arms() if row.role == "path"]
    assert sum(row.pulls for row in paths) == len(checked) == 30
    assert sum(row.pulls * (row.mean_reward or 0.0) for row in paths) == pytest.approx(
        sum(o.reward for o in checked)
    )
    unchecked = engine.decide(ARITHMETIC)
    reliability = unchecked.step("referee").outputs["reliability"]
    assert reliability["auc"] == 0.5
    assert reliability["weight"] < 0.1
    assert round(unchecked.outcomes[0].weight, 4) == reliability["weight"]


def test_an_informative_referee_keeps_a_high_weight(world) -> None:
    def honest(request: LLMRequest) -> str:
        right = "Answer: 7" in request.messages[-1].content
        return json.dumps({"score": 4 if right else 0, "reason": "checked"})

    world.overrides["referee"] = honest
    engine = world.engine(config=_config(1.0))
    for _ in range(30):
        engine.decide(ARITHMETIC, checker=world.checker_for(ARITHMETIC))
    reliability = engine.decide(ARITHMETIC).step("referee").outputs["reliability"]
    assert reliability["auc"] == 1.0
    assert reliability["weight"] > 0.9


def test_a_family_without_pairs_of_both_kinds_borrows_the_pooled_estimate() -> None:
    arithmetic = Counter(
        audit_key(r, c) for r, c in [(1.0, 1.0), (0.0, 0.0), (1.0, 1.0), (0.0, 0.0)]
    )
    letters = Counter([audit_key(1.0, 1.0)])
    pooled = arithmetic + letters

    def measured(own: Counter[tuple[float, bool]]) -> Reliability:
        return reliability(own, pooled, prior=0.5, prior_pairs=2, min_pairs=2)

    assert measured(letters).basis == "pooled"
    assert measured(arithmetic).basis == "family"
    assert measured(arithmetic).agreement == 1.0


def test_with_a_zero_prior_the_referee_judges_only_where_it_was_measured(world) -> None:
    def honest(request: LLMRequest) -> str:
        right = "Answer: 7" in request.messages[-1].content
        return json.dumps({"score": 4 if right else 0, "reason": "checked"})

    world.overrides["referee"] = honest
    assert EngineConfig().weight_for("referee") == 0.0  # the shipped prior
    llm = world.llm()
    engine = world.engine(llm, config=_config(1.0))
    unmeasured = engine.decide(ARITHMETIC)
    assert unmeasured.step("referee").reason == "skipped"
    assert unmeasured.outcomes == []
    assert "referee" not in [request.purpose for request in llm.requests]
    for _ in range(12):  # audits beside the checker measure it
        engine.decide(ARITHMETIC, checker=world.checker_for(ARITHMETIC))
    measured = engine.decide(ARITHMETIC)
    assert measured.step("referee").reason == "done"
    assert measured.step("referee").outputs["reliability"]["basis"] == "family"
    assert [o.source for o in measured.outcomes] == ["referee"]
    assert measured.outcomes[0].weight > 0.5
    restarted = world.engine(config=_config(1.0))  # measured from the log: it persists
    assert restarted.decide(ARITHMETIC).outcomes[0].weight == measured.outcomes[0].weight


def test_with_a_zero_prior_audits_give_a_family_its_measured_weight() -> None:
    honest = Counter({audit_key(1.0, 1.0): 6, audit_key(0.0, 0.0): 6})
    unmeasured = reliability({}, {}, prior=0.0, prior_pairs=10)
    measured = reliability(honest, honest, prior=0.0, prior_pairs=10)
    assert (unmeasured.weight, unmeasured.basis) == (0.0, "prior")
    assert measured.basis == "family"
    assert measured.weight == pytest.approx(12 / 22)  # 12 pairs, informativeness 1, shrunk to 0


def test_a_checked_decision_reads_the_referees_reliability_only_for_an_audit(
    world, monkeypatch
) -> None:
    reads: list[str] = []
    original = ArmBook.referee_reliability

    def counted(self: ArmBook, *args: object, **kwargs: object) -> Reliability:
        reads.append("read")
        return original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ArmBook, "referee_reliability", counted)
    never = world.engine(config=_config(0.0))
    for _ in range(3):
        never.decide(ARITHMETIC, checker=world.checker_for(ARITHMETIC))
    assert reads == []  # no audit: nothing weighs a referee score
    always = world.engine(config=_config(1.0))
    decision = always.decide(ARITHMETIC, checker=world.checker_for(ARITHMETIC))
    assert [o.source for o in decision.outcomes] == ["checker", "referee"]
    assert reads == ["read"]  # the audit's score is weighed by it


def test_the_pooled_audit_counts_stay_every_kinds_added_up_through_corrections_and_restores() -> (
    None
):
    def fresh() -> Learner:
        policies = {role: make_policy("ucb1", ["a", "b"]) for role in ("path", "tool")}
        return Learner(policies, context_dim=1, history=lambda _decision_ids: [])

    def scored(seq: int, decision: str, source: str, reward: float, kind: float) -> LearnedOutcome:
        return learned_outcome(
            seq, decision, path="a", tool="a", source=source, reward=reward, context=(kind,)
        )

    learner = fresh()
    learner.apply(
        [
            scored(1, "d1", "referee", 1.0, kind=1.0),
            scored(2, "d1", "checker", 1.0, kind=1.0),
            scored(3, "d2", "checker", 0.0, kind=0.0),
            scored(4, "d2", "referee", 1.0, kind=0.0),
            scored(5, "d3", "checker", 1.0, kind=1.0),
            scored(6, "d3", "referee", 0.0, kind=1.0),
            scored(7, "d1", "referee#1", 0.0, kind=1.0),  # a correction moves d1's pair
        ]
    )
    own, pooled = learner.audits((1.0,))
    assert own == Counter({audit_key(0.0, 1.0): 2})
    assert pooled == Counter({audit_key(0.0, 1.0): 2, audit_key(1.0, 0.0): 1})
    assert pooled == learner.audits((1.0,))[0] + learner.audits((0.0,))[0]
    restored = fresh()
    restored.restore(
        learner.state(), {role: make_policy("ucb1", ["a", "b"]) for role in ("path", "tool")}
    )
    assert restored.audits((0.0,)) == (Counter({audit_key(1.0, 0.0): 1}), pooled)
    pooled[audit_key(1.0, 0.0)] += 5  # a reader's copy: the learner's counts stay as learned
    assert learner.audits((0.0,))[1] == restored.audits((0.0,))[1] != pooled
