"""Per-decision budgets are enforced before a call is made, and stop with a traced reason."""

from engine.domain.budget import Budget
from tests.unit.engine.conftest import REFEREE_OPT_IN, known_kinds

QUERY = "What is the sum 3 + 4?"


def test_a_one_call_budget_keeps_the_answer_and_stops_the_rest(world) -> None:
    llm = world.llm()
    engine = world.engine(llm, always_seed=True, referee_weight=REFEREE_OPT_IN, rating=True)
    decision = known_kinds(engine, llm).decide(QUERY, budget=Budget(max_calls=1))
    assert [request.purpose for request in llm.requests] == ["answer"]
    assert decision.answer is not None
    assert decision.cost.calls == 1
    assert decision.degraded
    for stage in ("seed", "rating", "referee"):
        assert decision.step(stage).reason == "budget_stop"


def test_a_token_budget_stops_calls_once_spent(world) -> None:
    llm = world.llm()
    engine = known_kinds(world.engine(llm, rating=True), llm)
    decision = engine.decide(QUERY, budget=Budget(max_calls=6, max_tokens=150))
    stopped = [step for step in decision.trace if step.reason == "budget_stop"]
    assert stopped, "a 150-token budget must stop some stage"
    assert "token budget spent" in (stopped[0].error or "")
    assert decision.degraded
    assert decision.cost.prompt_tokens + decision.cost.completion_tokens <= 150


def test_an_unlimited_budget_still_keeps_the_worst_case_retry_rule(world) -> None:
    world.overrides["referee"] = lambda request: "garbage"
    llm = world.llm()
    engine = world.engine(llm, always_seed=True, referee_weight=REFEREE_OPT_IN, rating=True)
    decision = known_kinds(engine, llm).decide(QUERY, budget=Budget())
    # cold: seed, rate, answer, referee + one retry of the referee; never more than six
    assert [request.purpose for request in llm.requests] == [
        "seed",
        "rate",
        "answer",
        "referee",
        "referee",
    ]
    assert decision.step("referee").reason == "fault"
