"""LLM faults never reach the caller: the decision completes degraded, the fault in its trace."""

import pytest

from engine.domain.records import LLMRequest
from engine.domain.structured import StructuredOutputError
from engine.errors import LLMOutputError, LLMTimeoutError, LLMUnavailableError
from tests.unit.engine.conftest import REFEREE_OPT_IN, known_kinds

QUERY = "What is the sum 3 + 4?"


def raiser(error: Exception):
    def script(request: LLMRequest) -> str:
        raise error

    return script


@pytest.mark.parametrize(
    ("stage", "purpose", "error", "kind"),
    [
        ("answer", "answer", LLMTimeoutError("no answer within 60 s"), "LLMTimeoutError"),
        ("seed", "seed", LLMUnavailableError("provider unreachable"), "LLMUnavailableError"),
        ("rating", "rate", RuntimeError("SDK blew up"), "LLMUnavailableError"),
        ("referee", "referee", ValueError("bad gateway"), "LLMUnavailableError"),
    ],
)
def test_a_fault_degrades_the_decision_and_is_traced(world, stage, purpose, error, kind) -> None:
    world.overrides[purpose] = raiser(error)
    opted_in = REFEREE_OPT_IN if stage == "referee" else None  # never measured, else not asked
    engine = world.engine(always_seed=stage == "seed", referee_weight=opted_in, rating=True)
    decision = known_kinds(engine).decide(QUERY)
    step = decision.step(stage)
    assert decision.degraded
    assert step.reason == "fault"
    assert step.error is not None
    assert step.error.startswith(kind)
    assert any(reason.startswith(f"{stage}: {kind}") for reason in decision.degraded_reasons)
    assert world.store.get_decision(decision.id).payload["degraded"] is True


def test_malformed_rating_output_falls_back_to_the_policy(world) -> None:
    world.overrides["rate"] = lambda request: "I think digits is best!"
    decision = known_kinds(world.engine(rating=True)).decide(QUERY)
    assert decision.step("rating").reason == "fault"
    assert "OutputError" in (decision.step("rating").error or "")
    assert decision.path.reason == "chose_by_posterior"
    assert 0.0 < decision.path.propensity <= 1.0
    assert decision.answer is not None  # the decision went on


def test_a_failed_answer_gives_no_answer_and_no_reward(world) -> None:
    world.overrides["answer"] = raiser(LLMTimeoutError("slow"))
    decision = world.engine().decide(QUERY, checker=lambda text: 1.0)
    assert decision.answer is None
    assert decision.outcomes == []
    assert world.store.outcomes_since("default", 0) == []


def test_a_broken_checker_is_a_fault_not_a_crash(world) -> None:
    decision = world.engine().decide(QUERY, checker=lambda text: 2.0)
    assert decision.step("checker").reason == "fault"
    assert "not a reward in [0, 1]" in (decision.step("checker").error or "")
    assert decision.outcomes == []


def test_structured_output_error_names_the_raw_text(world) -> None:
    world.overrides["referee"] = lambda request: "ten out of ten"
    decision = world.engine(referee_weight=REFEREE_OPT_IN).decide(QUERY)
    step = decision.step("referee")
    assert issubclass(StructuredOutputError, LLMOutputError)
    assert (step.error or "").startswith(StructuredOutputError.__name__)
    assert step.outputs["raw_text"] == "ten out of ten"
