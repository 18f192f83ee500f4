"""Stages return what they did: each step's report reaches the listener as it finishes, and the
decision's trace and cost are the sum of those reports, with no recorder shared between stages."""

from typing import cast

import pytest

from engine.adapters.llm.scripted import ScriptedLLM
from engine.domain.budget import Budget, MeteredLLM
from engine.domain.models import TraceStep
from engine.domain.records import ChatMessage, Cost, LLMRequest
from engine.domain.trace import Report, Steps, Trace, budget_stop, fault, report, start
from engine.errors import BudgetExceededError, LLMUnavailableError
from engine.orchestration.run_state import Attempt, RunState, run_stage
from tests.unit.engine.conftest import REFEREE_OPT_IN, known_kinds

QUERY = "What is the sum 3 + 4?"


class Heard:
    def __init__(self) -> None:
        self.steps: list[TraceStep] = []

    def on_stage(self, step: TraceStep) -> None:
        self.steps.append(step)

    def on_token(self, text: str) -> None:
        pass


def test_the_listener_hears_every_step_of_the_trace_in_order(world) -> None:
    heard = Heard()
    decision = world.engine().decide(QUERY, listener=heard)
    assert heard.steps == decision.trace
    assert len(heard.steps) >= 6  # kind, seed, detour, selections, answer, referee at least


def test_the_decision_cost_is_the_sum_of_its_steps_calls(world) -> None:
    llm = world.llm()
    engine = world.engine(llm, referee_weight=REFEREE_OPT_IN, always_seed=True)
    decision = known_kinds(engine, llm).decide(QUERY)
    assert decision.cost.calls == len(llm.requests) == sum(s.calls for s in decision.trace)
    assert decision.cost.calls >= 3  # seed, answer, referee at least: the sum is not vacuous


def test_each_step_heard_before_the_next_stage_calls_the_model(world) -> None:
    heard = Heard()
    seen_at_call: dict[str, list[str]] = {}

    def script(request: LLMRequest) -> str:
        seen_at_call.setdefault(request.purpose, [step.stage for step in heard.steps])
        return str(world.script(request))

    engine = known_kinds(world.engine(ScriptedLLM(script)))
    seen_at_call.clear()  # what the kinds' first decisions saw is not this decision's
    engine.decide(QUERY, listener=heard)
    # Each step is told when it ends, before a later stage calls the model: the search and its
    # check before the seed's call (when the seed is built), the choices before the answer's.
    if "seed" in seen_at_call:
        assert seen_at_call["seed"] == ["kind", "model", "options", "search", "seed_check"]
    assert {"kind", "seed", "detour", "selection", "tool_selection"} <= set(seen_at_call["answer"])


def _run(llm: ScriptedLLM, budget: Budget, spent: Cost) -> RunState:
    return RunState(QUERY, (0.0,), llm, budget, spent)


def _drain(steps: Steps[Attempt[str]]) -> tuple[list[Report], Attempt[str]]:
    reports = []
    while True:
        try:
            reports.append(next(steps))
        except StopIteration as finished:
            return reports, cast("Attempt[str]", finished.value)


def test_a_stage_given_a_spent_budget_is_refused_before_the_model_is_called() -> None:
    llm = ScriptedLLM(lambda request: "four")
    run = _run(llm, Budget(max_calls=2), Cost(calls=2))
    reports, attempt = _drain(
        run_stage(run, "answer", lambda meter: meter.complete(_request()).text, started=start())
    )
    assert llm.requests == []
    assert attempt.value is None
    assert [r.step.reason for r in reports] == ["budget_stop"]
    assert "call budget spent" in (reports[0].degraded or "")


def test_a_stage_reports_its_own_cost_and_leaves_the_state_it_was_given_unchanged() -> None:
    llm = ScriptedLLM(lambda request: "four")
    run = _run(llm, Budget(max_calls=3), Cost(calls=1))
    reports, attempt = _drain(
        run_stage(run, "answer", lambda meter: meter.complete(_request()).text, started=start())
    )
    assert (reports, attempt.value, attempt.cost.calls) == ([], "four", 1)
    assert run.spent == Cost(calls=1)  # a value: the pipeline hands on `run.after(cost)`
    assert run.after(attempt.cost).calls_left == 1


def test_an_optional_stage_stops_when_only_the_answer_is_affordable() -> None:
    llm = ScriptedLLM(lambda request: "four")
    run = _run(llm, Budget(max_calls=2), Cost(calls=1))
    reports, attempt = _drain(
        run_stage(run, "seed", lambda meter: "x", started=start(), optional="no call left")
    )
    assert attempt.value is None
    assert reports[0].step.error == "no call left"


def test_a_failed_call_is_reported_with_its_cost() -> None:
    def down(request: LLMRequest) -> str:
        raise LLMUnavailableError("down")

    run = _run(ScriptedLLM(down), Budget(max_calls=3), Cost())
    reports, attempt = _drain(
        run_stage(run, "answer", lambda meter: meter.complete(_request()).text, started=start())
    )
    assert reports[0].step.reason == "fault"
    assert reports[0].step.calls == attempt.cost.calls == 1


def test_a_trace_adds_reports_without_changing_the_one_it_came_from() -> None:
    empty = Trace()
    one = empty.plus(report("search", "done", start()))
    two = one.plus(budget_stop("seed", start(), "no call left"))
    three = two.plus(fault("answer", BudgetExceededError("spent"), start(), cost=Cost(calls=1)))
    assert (len(empty.steps), len(one.steps), len(three.steps)) == (0, 1, 3)
    assert three.degraded_reasons == ("seed: no call left", "answer: BudgetExceededError: spent")
    assert three.steps[2].reason == "budget_stop"
    assert three.cost.calls == 1


def test_a_meter_counts_what_the_decision_spent_before_it() -> None:
    meter = MeteredLLM(
        ScriptedLLM(lambda r: "ok"), Budget(max_tokens=100), spent=Cost(prompt_tokens=95)
    )
    with pytest.raises(BudgetExceededError, match="token budget"):
        meter.complete(_request())
    assert meter.cost == Cost()


def _request() -> LLMRequest:
    return LLMRequest(messages=(ChatMessage("user", "two plus two?"),))


def test_a_step_that_made_no_call_leaves_the_run_state_and_its_cost_as_they_are() -> None:
    run = RunState(QUERY, (1.0,), ScriptedLLM(lambda _request: "4"), Budget(), Cost(calls=2))
    free = report("kind", "done", start())
    assert run.after(free.cost) is run
    assert (Cost(calls=2) + free.cost).calls == 2
    assert run.spent + free.cost is run.spent
    paid = run.after(Cost(calls=1, seconds=0.5))
    assert (paid.spent.calls, paid.spent.seconds, paid.query) == (3, 0.5, QUERY)
