"""Per-decision budgets are enforced before a call is made, and stop with a traced reason."""

import pytest

from engine.errors import BudgetExceededError, ConfigError
from engine.llm.scripted import ScriptedLLM
from engine.metering import Budget, MeteredLLM
from engine.ports import ChatMessage, LLMRequest

QUERY = "What is the sum 3 + 4?"


def test_a_one_call_budget_keeps_the_answer_and_stops_the_rest(world) -> None:
    llm = world.llm()
    decision = world.engine(llm).decide(QUERY, budget=Budget(max_calls=1))
    assert [request.purpose for request in llm.requests] == ["answer"]
    assert decision.answer is not None
    assert decision.cost.calls == 1
    assert decision.degraded
    for stage in ("seed", "rating", "referee"):
        assert decision.step(stage).reason == "budget_stop"


def test_a_token_budget_stops_calls_once_spent(world) -> None:
    llm = world.llm()
    decision = world.engine(llm).decide(QUERY, budget=Budget(max_calls=6, max_tokens=30))
    stopped = [step for step in decision.trace if step.reason == "budget_stop"]
    assert stopped, "a 30-token budget must stop some stage"
    assert "token budget spent" in (stopped[0].error or "")
    assert decision.cost.prompt_tokens + decision.cost.completion_tokens < 30 + 200


def test_the_meter_refuses_before_calling() -> None:
    llm = ScriptedLLM(lambda request: "ok")
    meter = MeteredLLM(llm, Budget(max_calls=2))
    request = LLMRequest(messages=(ChatMessage("user", "hi"),))
    meter.complete(request)
    meter.complete(request)
    with pytest.raises(BudgetExceededError, match="2 of 2 LLM calls"):
        meter.complete(request)
    assert len(llm.requests) == 2


def test_the_meter_bounds_each_call_by_the_budget_left() -> None:
    llm = ScriptedLLM(lambda request: "one two three")
    meter = MeteredLLM(llm, Budget(max_tokens=10, max_seconds=5.0))
    meter.complete(LLMRequest(messages=(ChatMessage("user", "a b"),), max_tokens=256))
    assert llm.requests[0].max_tokens == 10
    assert llm.requests[0].timeout_s <= 5.0
    meter.complete(LLMRequest(messages=(ChatMessage("user", "c"),), max_tokens=256))
    assert llm.requests[1].max_tokens == 10 - 5


@pytest.mark.parametrize(
    ("field", "value"), [("max_calls", 0), ("max_tokens", -1), ("max_seconds", float("nan"))]
)
def test_a_bad_budget_is_a_clear_error(field: str, value: float) -> None:
    with pytest.raises(ConfigError, match=field):
        Budget(**{field: value})
