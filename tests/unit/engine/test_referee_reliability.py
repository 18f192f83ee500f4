"""The referee's weight is measured against the checker: an uninformative referee counts little."""

import json

from engine.domain.config import DetourRules, EngineConfig
from engine.domain.records import LLMRequest
from engine.stages.referee import RefereeCalibration

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
    assert [o.source for o in decision.outcomes] == ["checker"]  # an audit teaches nothing
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
    calibration = RefereeCalibration(prior=0.5, prior_pairs=2, min_pairs=2)
    for referee, checker in [(1.0, 1.0), (0.0, 0.0), (1.0, 1.0), (0.0, 0.0)]:
        calibration.observe("arithmetic", referee, checker)
    calibration.observe("letters", 1.0, 1.0)
    assert calibration.reliability("letters").basis == "pooled"
    assert calibration.reliability("arithmetic").basis == "family"
    assert calibration.reliability("arithmetic").agreement == 1.0
