"""Call counts: a warm decision makes at most 3 LLM calls, the worst case at most 6.

The referee's call is counted where a user opted in to it (`REFEREE_OPT_IN`): by default it is
not made where audits never measured it, and the ceilings hold all the more.
"""

import json

import pytest

from engine.domain.config import SINGLE_PATH_WORST_CALLS, DetourRules, EngineConfig
from engine.domain.procedures import MAX_PROCEDURE_CALLS
from engine.domain.records import LLMRequest
from tests.unit.engine.conftest import REFEREE_OPT_IN, known_kinds, seed_calls

ARITHMETIC = "What is the sum 3 + 4?"


def warm_up(world, engine, query: str, most: int = 40) -> None:
    """Decide until no live arm is cold for `query` (detours come and go on the way)."""
    for _ in range(most):
        engine.decide(query, checker=lambda text: 1.0 if "Answer: 7" in text else 0.0)
        if not any(row.cold for row in engine.arms(query) if not row.retired):
            return
    raise AssertionError(f"arms still cold after {most} decisions")


def test_the_first_decision_of_a_new_kind_makes_no_call_besides_its_answer(world) -> None:
    llm = world.llm()
    engine = world.engine(llm, rating=True)  # even with the model's rating of paths on
    decision = engine.decide(ARITHMETIC)
    assert [request.purpose for request in llm.requests] == ["answer"]
    assert decision.kind is not None
    assert decision.kind.new
    assert decision.step("seed").reason == decision.step("detour").reason == "skipped"
    procedure = {path.arm_id: path.procedure for path in engine.templates()}
    assert procedure[decision.path.arm_id] in ("single", "bare")  # a one-call path
    second = engine.decide("What is the sum 5 + 6?")
    assert second.kind is not None
    assert not second.kind.new
    assert second.kind.id == decision.kind.id


def test_a_cold_decision_rates_once_and_the_llm_pick_leads(world) -> None:
    world.rating_favourite = "letters"
    llm = world.llm()
    engine = known_kinds(world.engine(llm, referee_weight=REFEREE_OPT_IN, rating=True), llm)
    decision = engine.decide(ARITHMETIC)
    purposes = [request.purpose for request in llm.requests]
    assert purposes == [*seed_calls(decision), "rate", "answer", "referee"]
    assert (decision.path.arm_id, decision.path.reason) == ("letters", "cold_start")
    assert decision.step("rating").outputs["scores"]["letters"] == 5
    assert decision.cost.calls == len(purposes)


def test_a_warm_decision_makes_at_most_three_calls(world) -> None:
    engine = world.engine()
    warm_up(world, engine, ARITHMETIC)
    llm = world.llm()
    # a second engine on the same store: it learns by replay
    warm = world.engine(llm, referee_weight=REFEREE_OPT_IN, rating=True)
    decision = warm.decide(ARITHMETIC)
    purposes = [request.purpose for request in llm.requests]
    assert purposes == [*seed_calls(decision), "answer", "referee"]
    assert decision.cost.calls == len(purposes) <= 3
    assert decision.path.reason == "chose_by_posterior"
    assert decision.step("rating").reason == "skipped"


def test_a_checker_replaces_the_referee(world) -> None:
    engine = world.engine()
    warm_up(world, engine, ARITHMETIC)
    llm = world.llm()
    decision = world.engine(llm, config=EngineConfig(seed=5, referee_audit=0.0)).decide(
        ARITHMETIC, checker=lambda text: 1.0
    )
    assert [request.purpose for request in llm.requests] == [*seed_calls(decision), "answer"]
    assert decision.step("referee").reason == "skipped"
    assert [(o.source, o.reward) for o in decision.outcomes] == [("checker", 1.0)]


def test_a_malformed_referee_in_a_warm_decision_degrades_instead_of_retrying(world) -> None:
    engine = world.engine()
    warm_up(world, engine, ARITHMETIC)
    world.overrides["referee"] = lambda request: "not json"
    llm = world.llm()
    decision = world.engine(llm, referee_weight=REFEREE_OPT_IN).decide(ARITHMETIC)
    assert decision.cost.calls == len([*seed_calls(decision), "answer", "referee"])
    assert decision.degraded
    assert decision.step("referee").reason == "fault"


def test_the_worst_case_cold_arms_plus_a_detour_stays_within_six_calls(world) -> None:
    # Every arm cold, failures repeating, a malformed first rating (one retry) and a referee
    # that never parses: the most calls a single-call path can be driven to (a procedure adds
    # its extra answer calls, which the default budget also allows).
    rules = DetourRules(prob_best_floor=0.0, failure_streak=2)
    engine = world.engine(config=EngineConfig(seed=1, detour=rules), cold_pulls=50, rating=True)
    for _ in range(2):
        engine.decide(ARITHMETIC, checker=lambda text: 0.0)
    ratings = iter(["{broken", None])

    def rate(request: LLMRequest) -> str:
        text = next(ratings)
        return text if text is not None else world._rate(request)

    world.overrides["rate"] = rate
    world.overrides["referee"] = lambda request: json.dumps({"score": 9})
    llm = world.llm()
    decision = world.engine(
        llm,
        config=EngineConfig(seed=1, detour=rules),
        cold_pulls=50,
        always_seed=True,
        referee_weight=REFEREE_OPT_IN,
        rating=True,
    ).decide(ARITHMETIC)
    purposes = [request.purpose for request in llm.requests]
    assert purposes == ["seed", "rate", "rate", "detour", "answer", "referee"]
    assert decision.cost.calls == 6 == SINGLE_PATH_WORST_CALLS
    assert EngineConfig().budget.max_calls == SINGLE_PATH_WORST_CALLS - 1 + MAX_PROCEDURE_CALLS
    assert decision.step("detour").reason == "detour_trigger"


def test_cost_counts_tokens_and_money(world) -> None:
    decision = world.engine().decide(ARITHMETIC)
    assert decision.cost.prompt_tokens > 0
    assert decision.cost.completion_tokens > 0
    assert decision.cost.cost_usd == 0.0  # the scripted model reports a price of zero


def test_the_llm_is_asked_only_when_the_policy_chooses_to_explore(world) -> None:
    world.rating_favourite = "digits"
    engine = known_kinds(world.engine(cold_pulls=3, rating=True))
    decisions = [
        engine.decide(ARITHMETIC, checker=lambda text: 1.0 if "Answer: 7" in text else 0.0)
        for _ in range(12)
    ]
    exploiting = [
        d
        for d in decisions
        if d.step("rating").reason == "skipped" and d.step("selection").inputs["cold"]
    ]
    assert exploiting, "with arms still cold, a warm draw must not call the rater"
    assert all(d.path.reason == "chose_by_posterior" for d in exploiting)
    for decision in decisions:
        selection = decision.step("selection")
        if decision.path.reason == "cold_start":
            assert selection.inputs["policy_draw"] in selection.inputs["cold"]
            cold = selection.inputs["cold"]
            cold_mass = sum(c.propensity or 0.0 for c in decision.candidates if c.arm_id in cold)
            ratings = [c.rating for c in decision.candidates if c.arm_id in cold]
            ties = ratings.count(max(r or 0 for r in ratings))  # the pick shares the mass
            assert decision.path.propensity == pytest.approx(cold_mass / ties, abs=1e-3)


def test_each_stage_counts_its_own_calls(world) -> None:
    llm = world.llm()
    engine = known_kinds(world.engine(llm, referee_weight=REFEREE_OPT_IN, rating=True), llm)
    decision = engine.decide(ARITHMETIC)
    stage_of = {"seed": "seed", "rate": "rating", "answer": "answer", "referee": "referee"}
    expected: dict[str, int] = {}
    for request in llm.requests:
        expected[stage_of[request.purpose]] = expected.get(stage_of[request.purpose], 0) + 1
    counted = {step.stage: step.calls for step in decision.trace if step.calls}
    assert counted == expected
    assert sum(counted.values()) == decision.cost.calls == len(llm.requests) >= 3
