"""The referee's weight is measured against the checker: an uninformative referee counts little."""

import json
from collections import Counter
from dataclasses import replace

import pytest

from engine.domain.config import DetourRules, EngineConfig
from engine.domain.records import LLMRequest
from engine.stages.referee import Reliability, audit_key, reliability

ARITHMETIC = "What is 3 + 4?"


def _config(audit: float) -> EngineConfig:
    return EngineConfig(
        seed=5, detour=DetourRules(prob_best_floor=0.0), referee_audit=audit, referee_prior_pairs=1
    )


def test_without_a_checker_the_documented_prior_applies(world) -> None:
    decision = world.engine(config=_config(0.0)).decide(ARITHMETIC)
    referee = decision.step("referee")
    assert referee.outputs["reliability"]["basis"] == "prior"
    assert [(o.source, o.weight) for o in decision.outcomes] == [("referee", 0.5)]


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
    zero = replace(_config(1.0), source_weights={**EngineConfig().source_weights, "referee": 0.0})
    llm = world.llm()
    engine = world.engine(llm, config=zero)
    unmeasured = engine.decide(ARITHMETIC)
    assert unmeasured.step("referee").reason == "skipped"
    assert unmeasured.outcomes == []
    assert "referee" not in [request.purpose for request in llm.requests]
    for _ in range(12):  # audits beside the checker measure it
        engine.decide(ARITHMETIC, checker=world.checker_for(ARITHMETIC))
    measured = engine.decide(ARITHMETIC)
    assert measured.step("referee").reason == "done"
    assert [o.source for o in measured.outcomes] == ["referee"]
    assert measured.outcomes[0].weight > 0.5
