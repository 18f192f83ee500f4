"""Progress lines and the queue that carries a running decision's events to another thread."""

import re
import tempfile
import threading
from pathlib import Path

import pytest

from engine import Engine, TraceStep
from tests.unit.ui.conftest import scripted_engine
from ui.playground import Actions
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
        "Fell back to the tool `text`, after `calculator` refused (drawn by what the tool"
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


def test_each_model_call_is_named_as_it_starts_with_the_seconds_so_far(engine: Engine) -> None:
    """A 20 s call was never named while it ran: the line under the finished stages names the
    call in progress and counts the seconds (a stand-in clock: one second per reading)."""
    readings = iter(range(1000))
    actions = Actions(engine, clock=lambda: float(next(readings)))
    updates = [lines for lines, _view in actions.ask_live("Who wrote Hamlet?", "", "")]
    naming = [u for u in updates if u.splitlines()[-1].startswith("- *Writing the answer...")]
    assert naming  # the answer call was named before the answer stage finished
    # the call's own seconds, then the whole wait's
    assert re.search(r"\(\d+ s; \d+ s in all\)\*$", naming[0])
    finished = updates[-1].splitlines()
    assert re.fullmatch(r"- \*\*Done\*\* in \d+\.\d s\.", finished[-1])
    assert all(re.search(r"\(\d+\.\d s\)$", line) for line in finished[:-1])


def test_the_queue_ticks_while_the_work_is_silent() -> None:
    release = threading.Event()

    def work(listener: ProgressQueue) -> str:
        listener.on_call("answer")
        release.wait(5)
        return "decided"

    events = ProgressQueue().run(work, tick_s=0.01)
    assert next(events) == ("call", "answer")
    assert next(events) == ("tick", None)  # nothing new, yet the display can count on
    release.set()
    assert [kind for kind, _ in events][-1] == "done"


def test_a_listener_hears_the_purpose_of_each_call_before_it_is_made() -> None:
    heard: list[str] = []

    class Listener:
        def on_stage(self, step: TraceStep) -> None:
            heard.append(f"stage:{step.stage}")

        def on_token(self, text: str) -> None:
            del text

        def on_call(self, purpose: str) -> None:
            heard.append(f"call:{purpose}")

    scripted_engine(Path(tempfile.mkdtemp())).decide("Who wrote Hamlet?", listener=Listener())
    calls = [entry for entry in heard if entry.startswith("call:")]
    assert "call:answer" in calls
    assert heard.index("call:answer") < heard.index("stage:answer")
