"""MeteredLLM: cost accounting in one place, and budgets refused before the model is called."""

import threading
from collections.abc import Callable

import pytest

from engine.adapters.llm.scripted import ScriptedLLM
from engine.domain.budget import Budget, MeteredLLM, estimate_prompt_tokens
from engine.domain.records import ChatMessage, Cost, LLMRequest, LLMResponse
from engine.errors import BudgetExceededError, ConfigError, LLMTimeoutError


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def ask(text: str = "one two three", **fields: object) -> LLMRequest:
    return LLMRequest(messages=(ChatMessage("user", text),), **fields)  # type: ignore[arg-type]


class PricedLLM:
    """Answers with fixed usage, a price, and a duration on the fake clock."""

    def __init__(self, clock: FakeClock, seconds: float = 0.5, cost: float | None = 0.01) -> None:
        self.clock, self.seconds, self.price = clock, seconds, cost
        self.requests: list[LLMRequest] = []

    def complete(self, request: LLMRequest) -> LLMResponse:
        self.requests.append(request)
        self.clock.now += self.seconds
        return LLMResponse("ok", "priced", 10, 5, self.seconds, self.price)

    def stream(self, request: LLMRequest, on_text: Callable[[str], None]) -> LLMResponse:
        response = self.complete(request)
        on_text(response.text)
        return response


def test_cost_adds_calls_tokens_seconds_and_money() -> None:
    clock = FakeClock()
    llm = MeteredLLM(PricedLLM(clock), clock=clock)
    llm.complete(ask())
    llm.complete(ask())
    assert llm.cost == Cost(
        calls=2, prompt_tokens=20, completion_tokens=10, seconds=1.0, cost_usd=0.02
    )
    assert llm.cost.total_tokens == 30


def test_unknown_price_is_counted_not_guessed() -> None:
    clock = FakeClock()
    llm = MeteredLLM(PricedLLM(clock, cost=None), clock=clock)
    llm.complete(ask())
    assert (llm.cost.cost_usd, llm.cost.unpriced_calls) == (None, 1)


def test_failed_call_counts_its_time_and_reraises() -> None:
    clock = FakeClock()

    def slow_failure(request: LLMRequest) -> str:
        clock.now += 2.0
        raise LLMTimeoutError("too slow")

    llm = MeteredLLM(ScriptedLLM(slow_failure), Budget(max_calls=2), clock=clock)
    with pytest.raises(LLMTimeoutError):
        llm.complete(ask())
    assert llm.cost == Cost(calls=1, failed_calls=1, seconds=2.0)
    llm.inner = ScriptedLLM(lambda request: "fine")
    assert llm.complete(ask()).text == "fine"  # the reservation of the failed call was released


def test_call_budget_refuses_before_calling_and_changes_nothing() -> None:
    scripted = ScriptedLLM(lambda request: "a")
    llm = MeteredLLM(scripted, Budget(max_calls=2))
    llm.complete(ask())
    llm.complete(ask())
    before = llm.cost
    with pytest.raises(BudgetExceededError, match="2 of 2 calls"):
        llm.complete(ask(purpose="rate"))
    assert len(scripted.requests) == 2
    assert llm.cost == before


def test_token_budget_cuts_max_tokens_to_what_is_left() -> None:
    scripted = ScriptedLLM(lambda request: "word " * 3)
    llm = MeteredLLM(scripted, Budget(max_tokens=100), estimate_prompt=lambda request: 20)
    llm.complete(ask(max_tokens=256))
    assert scripted.requests[-1].max_tokens == 80  # 100 - 20 estimated prompt tokens
    llm.complete(ask(max_tokens=30))
    assert scripted.requests[-1].max_tokens == 30  # enough room: untouched


def test_token_budget_refuses_when_too_little_is_left() -> None:
    scripted = ScriptedLLM(lambda request: " ".join(["w"] * 70))
    llm = MeteredLLM(scripted, Budget(max_tokens=100), estimate_prompt=lambda request: 20)
    llm.complete(ask())  # 3 prompt + 70 completion tokens spent
    before = llm.cost
    with pytest.raises(BudgetExceededError, match="73 of 100 tokens"):
        llm.complete(ask())  # 27 left - 20 for the prompt = 7 < 16 completion tokens
    assert len(scripted.requests) == 1
    assert llm.cost == before
    assert llm.complete(ask(max_tokens=5)).text  # a call that asks for little still fits


def test_seconds_budget_caps_the_timeout_and_then_refuses() -> None:
    clock = FakeClock()
    inner = PricedLLM(clock, seconds=3.0)
    llm = MeteredLLM(inner, Budget(max_seconds=5.0), clock=clock)
    llm.complete(ask(timeout_s=60.0))
    assert inner.requests[-1].timeout_s == 5.0
    llm.complete(ask(timeout_s=60.0))
    assert inner.requests[-1].timeout_s == 2.0
    with pytest.raises(BudgetExceededError, match="time budget"):
        llm.complete(ask())
    assert len(inner.requests) == 2


@pytest.mark.parametrize(
    "fields",
    [
        {"max_calls": 0},
        {"max_tokens": -5},
        {"max_calls": 1.5},
        {"max_calls": True},
        {"max_seconds": 0.0},
        {"max_seconds": float("nan")},
        {"max_seconds": float("inf")},
    ],
)
def test_bad_budget_is_a_clear_error(fields: dict[str, object]) -> None:
    name = next(iter(fields))
    with pytest.raises(ConfigError, match=name):
        Budget(**fields)  # type: ignore[arg-type]


def test_concurrent_calls_cannot_overspend_the_call_budget() -> None:
    gate = threading.Event()

    def wait_then_answer(request: LLMRequest) -> str:
        gate.wait(timeout=5)
        return "done"

    llm = MeteredLLM(ScriptedLLM(wait_then_answer), Budget(max_calls=1))
    worker = threading.Thread(target=llm.complete, args=(ask(),))
    worker.start()
    try:
        while llm._reserved_calls == 0 and worker.is_alive():
            threading.Event().wait(0.001)
        with pytest.raises(BudgetExceededError):
            llm.complete(ask())
    finally:
        gate.set()
        worker.join(timeout=5)
    assert llm.cost.calls == 1


def test_estimate_grows_with_text_and_messages() -> None:
    short = estimate_prompt_tokens(ask("hi"))
    longer = estimate_prompt_tokens(ask("hi " * 100))
    two = estimate_prompt_tokens(
        LLMRequest(messages=(ChatMessage("system", "hi"), ChatMessage("user", "hi")))
    )
    assert short < longer
    assert two == 2 * short
