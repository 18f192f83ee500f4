"""The registry: allow-list, deadlines, and tool failures as outcomes rather than crashes."""

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from engine.adapters.tools import NO_TOOL, Calculator, ToolRegistry, ToolResult, web_search_tool
from engine.errors import RetrievalError, ToolError
from retrieval.port import Passage


@dataclass
class Scripted:
    """A tool double: returns `output` or raises `error`; can wait on an event first."""

    name: str
    output: object = "done"
    error: BaseException | None = None
    gate: threading.Event | None = None
    arguments: list[str] = field(default_factory=list)
    threads: list[threading.Thread] = field(default_factory=list)
    description: str = "a scripted tool"

    def run(self, argument: str) -> str:
        self.arguments.append(argument)
        self.threads.append(threading.current_thread())
        if self.gate is not None:
            self.gate.wait(10)
        if self.error is not None:
            raise self.error
        return self.output  # type: ignore[return-value]


class OfflineSearcher:
    def search(self, query: str, limit: int = 5) -> list[Passage]:
        raise RetrievalError("web search is unreachable (offline)")


def test_names_and_descriptions_list_enabled_tools_with_none_first() -> None:
    registry = ToolRegistry([Calculator(), Scripted("echo")], allowed=["echo"])
    assert registry.names() == [NO_TOOL, "echo"]
    assert registry.describe() == {
        NO_TOOL: "Use no tool; answer from the question and the notes alone.",
        "echo": "a scripted tool",
    }
    assert set(registry.tools) == {NO_TOOL, "calculator", "echo"}


def test_without_an_allow_list_every_tool_is_enabled() -> None:
    assert ToolRegistry([Calculator()]).names() == [NO_TOOL, "calculator"]


def test_none_runs_instantly_with_empty_output() -> None:
    assert ToolRegistry([]).run(NO_TOOL, "what", timeout_s=1) == ToolResult(True, "", None, 0.0)


def test_a_successful_call_returns_the_tool_output() -> None:
    tool = Scripted("echo", output="hello")
    result = ToolRegistry([tool]).run("echo", "hi", timeout_s=5)
    assert (result.ok, result.output, result.error) == (True, "hello", None)
    assert result.seconds >= 0.0
    assert tool.arguments == ["hi"]


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (RuntimeError("backend broke"), "RuntimeError: backend broke"),
        (ToolError("bad input"), "ToolError: bad input"),
        (ValueError(), "ValueError: (no message)"),
        (SystemExit(3), "SystemExit: 3"),
    ],
)
def test_a_tool_that_raises_gives_a_failed_result(error: BaseException, expected: str) -> None:
    result = ToolRegistry([Scripted("bad", error=error)]).run("bad", "x", timeout_s=5)
    assert (result.ok, result.output, result.error) == (False, "", expected)


def test_a_tool_that_returns_no_text_fails() -> None:
    result = ToolRegistry([Scripted("bad", output=42)]).run("bad", "x", timeout_s=5)
    assert (result.ok, result.error) == (False, "tool returned int, not text")


def test_long_output_is_cut() -> None:
    registry = ToolRegistry([Scripted("long", output="x" * 50)], max_output_chars=10)
    assert registry.run("long", "", timeout_s=5).output == "x" * 10 + " [... cut]"


def test_a_tool_past_its_deadline_fails_and_is_abandoned() -> None:
    gate = threading.Event()
    registry = ToolRegistry([Scripted("slow", gate=gate)])
    result = registry.run("slow", "x", timeout_s=0.05)
    gate.set()
    assert (result.ok, result.error) == (False, "timed out after 0.05 s")


def test_abandoned_calls_are_capped_so_threads_cannot_pile_up() -> None:
    gate = threading.Event()
    slow = Scripted("slow", gate=gate)
    registry = ToolRegistry([slow, Scripted("quick")], max_in_flight=2)
    try:
        for _ in range(2):
            assert registry.run("slow", "x", timeout_s=0.01).error == "timed out after 0.01 s"
        refused = registry.run("quick", "x", timeout_s=5)
        assert (refused.ok, refused.error) == (
            False,
            "too many tool calls are still running; try again later",
        )
    finally:
        gate.set()
    # Once the stuck calls end, their slots come back (each within moments of its gate).
    assert _eventually(lambda: registry.run("quick", "x", timeout_s=5).ok)


def _eventually(check: Callable[[], bool], tries: int = 500) -> bool:
    """True once `check()` is: for a state another thread reaches just after an event."""
    for _ in range(tries):
        if check():
            return True
        time.sleep(0.01)
    return False


def test_calls_reuse_the_registrys_workers_instead_of_starting_a_thread_each() -> None:
    tool = Scripted("echo")
    registry = ToolRegistry([tool], max_in_flight=3)
    for _ in range(20):
        assert registry.run("echo", "x", timeout_s=5).ok
    assert len(set(tool.threads)) == 1  # one worker answered all twenty calls
    assert tool.threads[0] is not threading.current_thread()  # and the deadline ran beside it


def test_a_call_after_an_abandoned_one_runs_at_once_on_another_worker() -> None:
    gate = threading.Event()
    slow, quick = Scripted("slow", gate=gate), Scripted("quick", output="fast")
    registry = ToolRegistry([slow, quick], max_in_flight=2)
    try:
        assert registry.run("slow", "x", timeout_s=0.01).error == "timed out after 0.01 s"
        # the stuck worker is still busy: the next call must not queue behind it
        assert registry.run("quick", "x", timeout_s=5).output == "fast"
    finally:
        gate.set()
    assert slow.threads[0] is not quick.threads[0]


def test_concurrent_calls_never_use_more_threads_than_the_calls_allowed_at_once() -> None:
    tool = Scripted("echo")
    registry = ToolRegistry([tool], max_in_flight=4)
    results: list[bool] = []

    def caller() -> None:
        mine = [registry.run("echo", "x", timeout_s=5).ok for _ in range(25)]
        results.extend(mine)

    callers = [threading.Thread(target=caller) for _ in range(4)]
    for thread in callers:
        thread.start()
    for thread in callers:
        thread.join(30)
    assert results == [True] * 100
    assert 1 <= len(set(tool.threads)) <= 4


def test_an_offline_web_search_is_a_failed_outcome_not_a_crash() -> None:
    registry = ToolRegistry([web_search_tool(OfflineSearcher())])
    result = registry.run("web_search", "latest news", timeout_s=5)
    assert (result.ok, result.error) == (
        False,
        "RetrievalError: web search is unreachable (offline)",
    )


@pytest.mark.parametrize(
    ("name", "argument", "timeout_s", "message"),
    [
        ("nope", "x", 1.0, r"unknown tool 'nope'; known tools: \['calculator', 'echo', 'none'\]"),
        ("calculator", "x", 1.0, r"tool 'calculator' is not enabled; enabled tools: \['none',"),
        ("echo", b"x", 1.0, "tool argument must be a string, got bytes"),
        ("echo", "x", 0.0, "timeout_s must be a positive, finite number, got 0.0"),
        ("echo", "x", float("nan"), "timeout_s must be a positive, finite number"),
        ("echo", "x", "5", "timeout_s must be a number of seconds, got '5'"),
    ],
)
def test_caller_mistakes_raise_tool_error(
    name: str, argument: object, timeout_s: object, message: str
) -> None:
    echo = Scripted("echo")
    registry = ToolRegistry([Calculator(), echo], allowed=["echo"])
    with pytest.raises(ToolError, match=message):
        registry.run(name, argument, timeout_s)  # type: ignore[arg-type]
    assert echo.arguments == []


@pytest.mark.parametrize(
    ("tools", "allowed", "message"),
    [
        ([Scripted("Echo")], None, "tool name 'Echo' is not a slug"),
        ([Scripted("echo"), Scripted("echo")], None, "two tools are named 'echo'"),
        ([Scripted(NO_TOOL)], None, "two tools are named 'none'"),
        ([Scripted("echo")], ["ecoh"], r"allowed tools \['ecoh'\] do not exist"),
    ],
)
def test_a_bad_registry_is_refused_at_construction(
    tools: list[Scripted], allowed: list[str] | None, message: str
) -> None:
    with pytest.raises(ToolError, match=message):
        ToolRegistry(tools, allowed=allowed)


@dataclass
class Preparing(Scripted):
    """A tool with a one-time set-up, recording the thread it ran on."""

    prepared_on: list[threading.Thread] = field(default_factory=list)
    prepare_error: BaseException | None = None

    def prepare(self) -> None:
        self.prepared_on.append(threading.current_thread())
        if self.prepare_error is not None:
            raise self.prepare_error


def test_a_tools_set_up_runs_once_in_the_callers_thread_before_the_deadline_starts() -> None:
    tool = Preparing("units")
    registry = ToolRegistry([tool])
    assert registry.run("units", "1 km in m", timeout_s=5).ok
    assert registry.run("units", "2 km in m", timeout_s=5).ok
    # the caller's thread, not the worker the deadline is measured on: loading libraries is
    # not work on the question
    assert tool.prepared_on == [threading.current_thread()]
    assert tool.arguments == ["1 km in m", "2 km in m"]


def test_a_set_up_that_fails_leaves_the_run_to_report_the_failure() -> None:
    tool = Preparing("units", error=RuntimeError("no pint"), prepare_error=ImportError("pint"))
    result = ToolRegistry([tool]).run("units", "1 km in m", timeout_s=5)
    assert (result.ok, result.error) == (False, "RuntimeError: no pint")


@dataclass
class Inline(Scripted):
    """A tool that says its runs are bounded pure computation (`inline`)."""

    inline: bool = True
    seconds: float = 0.0

    def run(self, argument: str) -> str:
        time.sleep(self.seconds)
        return super().run(argument)


def test_an_inline_tool_runs_on_the_callers_thread_and_keeps_its_deadline() -> None:
    quick, slow = Inline("quick"), Inline("slow", seconds=0.05)
    failing = Inline("failing", error=ToolError("no such number"))
    registry = ToolRegistry([quick, slow, failing, Calculator()])
    assert registry.run("quick", "x", timeout_s=5).output == "done"
    assert quick.threads == [threading.current_thread()]  # no worker was woken
    late = registry.run("slow", "x", timeout_s=0.01)
    assert (late.ok, late.error) == (False, "timed out after 0.01 s")  # as a worker's would be
    assert registry.run("failing", "x", timeout_s=5).error == "ToolError: no such number"
    assert registry.run("calculator", "2 ^ 10", timeout_s=5).output == "2 ** 10 = 1024"
    assert registry._workers.started == 0  # every call above ran without a worker


def test_an_inline_interrupt_is_the_callers_not_the_tools() -> None:
    registry = ToolRegistry([Inline("stop", error=KeyboardInterrupt())])
    with pytest.raises(KeyboardInterrupt):
        registry.run("stop", "x", timeout_s=5)


@dataclass
class Prechecked(Scripted):
    """A tool that refuses some arguments at a glance (`precheck`), on the caller's thread."""

    checked_on: list[threading.Thread] = field(default_factory=list)

    def precheck(self, argument: str) -> None:
        self.checked_on.append(threading.current_thread())
        if "?" not in argument:
            raise ToolError("not a question")


def test_a_precheck_refuses_on_the_callers_thread_and_lets_the_rest_run() -> None:
    tool = Prechecked("asks")
    registry = ToolRegistry([tool])
    refused = registry.run("asks", "statement", timeout_s=5)
    assert (refused.ok, refused.error) == (False, "ToolError: not a question")
    assert tool.arguments == []  # no run,
    assert registry._workers.started == 0  # and no worker
    assert registry.run("asks", "question?", timeout_s=5).output == "done"
    assert tool.arguments == ["question?"]
    assert tool.threads != [threading.current_thread()]  # the run went to a worker
    assert tool.checked_on == [threading.current_thread()] * 2


@dataclass
class PreparedAndPrechecked(Preparing, Prechecked):
    """A tool with a set-up and a precheck: the units tool's shape."""


def test_a_question_refused_at_a_glance_costs_no_set_up() -> None:
    tool = PreparedAndPrechecked("units")
    registry = ToolRegistry([tool])
    refused = registry.run("units", "What is 12 + 30", timeout_s=5)
    assert (refused.ok, tool.prepared_on) == (False, [])  # the set-up took 5 s of a first decision
    assert registry.run("units", "How many m in 1 km?", timeout_s=5).ok
    assert tool.prepared_on == [threading.current_thread()]


@dataclass
class Bounded(Prechecked):
    """A tool whose precheck says which arguments' runs are bounded (True: the caller's thread)."""

    def precheck(self, argument: str) -> bool | str:  # type: ignore[override]
        super().precheck(argument)
        return True if argument == "short?" else "yes"  # only True itself means bounded


def test_a_precheck_that_says_bounded_runs_the_call_on_the_callers_thread_only_then() -> None:
    tool = Bounded("asks")
    registry = ToolRegistry([tool])
    assert registry.run("asks", "short?", timeout_s=5).output == "done"
    assert tool.threads == [threading.current_thread()]
    assert registry._workers.started == 0
    assert registry.run("asks", "longer?", timeout_s=5).output == "done"
    assert tool.threads[1] is not threading.current_thread()  # any other answer: a worker
    assert registry._workers.started == 1
