"""Progress lines and the queue that carries a running decision's events to another thread."""

import threading

import pytest

from engine.domain.models import TraceStep
from ui.progress import STAGE_TITLES, ProgressQueue, describe_stage

STAGES = [
    "search",
    "seed",
    "seed_check",
    "rating",
    "detour",
    "selection",
    "tool_selection",
    "tool",
    "answer",
    "checker",
    "referee",
]


@pytest.mark.parametrize("stage", STAGES)
def test_every_stage_has_a_plain_title_and_a_line(stage: str) -> None:
    assert stage in STAGE_TITLES
    line = describe_stage(TraceStep(stage=stage, reason="done"))
    assert line.startswith(STAGE_TITLES[stage])
    assert "_" not in line.split("`")[0]  # no engine words such as chose_by_posterior


def test_a_detour_says_what_it_created_and_why() -> None:
    step = TraceStep(
        stage="detour",
        reason="detour_trigger",
        inputs={"trigger": "every path failed three times"},
        outputs={"new_arms": ["detour_1"]},
    )
    assert describe_stage(step) == (
        "Considered a new path (detour): created `detour_1` because every path failed three times"
    )


def test_the_queue_hands_over_stages_and_tokens_in_order_from_the_worker() -> None:
    workers: list[str] = []

    def work(listener: ProgressQueue) -> str:
        workers.append(threading.current_thread().name)
        listener.on_stage(TraceStep(stage="search", reason="done"))
        listener.on_token("Ans")
        listener.on_token("wer: 4")
        return "decided"

    events = list(ProgressQueue().run(work))
    assert [kind for kind, _ in events] == ["stage", "token", "token", "done"]
    assert events[-1][1] == "decided"
    assert workers == ["decision"]  # the work ran on the worker thread, not this one


def test_the_queue_hands_over_an_error_instead_of_losing_it() -> None:
    def work(_listener: ProgressQueue) -> None:
        raise ValueError("bad query")

    ((kind, error),) = list(ProgressQueue().run(work))
    assert kind == "error"
    assert isinstance(error, ValueError)


def test_a_refusal_the_fallback_and_a_direct_answer_are_said_in_words() -> None:
    refused = TraceStep(
        stage="tool",
        reason="fault",
        inputs={"tool": "calculator", "argument": "q"},
        error="ToolRefusalError: cannot read '12 are empty'",
    )
    assert describe_stage(refused) == (
        "Ran the tool `calculator`: refused or failed"
        " (ToolRefusalError: cannot read '12 are empty')"
    )
    fallback = TraceStep(
        stage="tool_fallback",
        reason="chose_by_posterior",
        inputs={"refused": "calculator", "why": "..."},
        outputs={"arm": "text", "propensity": 0.25},
    )
    assert describe_stage(fallback) == (
        "Fell back to another tool `text`, after `calculator` refused (drawn by what the tool"
        " choice has learned: 25% of the chance left to the tools not yet tried)"
    )
    direct = TraceStep(
        stage="answer",
        reason="done",
        inputs={"tool": "calculator", "direct": True},
        outputs={"answer": "Answer: 18", "provenance": "parsed the whole question"},
    )
    assert describe_stage(direct) == (
        "Wrote the answer: the tool's result itself, with no model call (it parsed the whole"
        " question)"
    )
