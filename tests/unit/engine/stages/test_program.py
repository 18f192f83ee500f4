"""The program stage: one schema-constrained call writes the program, the program tool runs it."""

import json
from collections.abc import Mapping

import pytest

from engine.adapters.llm.scripted import ScriptedLLM
from engine.adapters.tools import ToolRegistry
from engine.adapters.tools.program import ProgramTool
from engine.domain.records import PROGRAM_TOOL, LLMRequest, ToolResult
from engine.domain.structured import StructuredOutputError
from engine.errors import BudgetExceededError, LLMOutputError, LLMTimeoutError
from engine.stages.program import (
    MAX_PROGRAM_CHARS,
    PROGRAM_SYSTEM,
    program_messages,
    solve_with_program,
    write_program,
)

QUESTION = "A bus has 30 seats and 12 are empty. How many are taken?"


def replying(program: str) -> ScriptedLLM:
    return ScriptedLLM(lambda request: json.dumps({"program": program}))


class RecordingToolBox:
    """A toolbox that records what it was asked to run and answers `result`."""

    def __init__(self, result: ToolResult) -> None:
        self.result = result
        self.calls: list[tuple[str, str]] = []

    def names(self) -> list[str]:
        return ["none", PROGRAM_TOOL]

    def describe(self) -> Mapping[str, str]:
        return {name: name for name in self.names()}

    def run(self, name: str, argument: str, timeout_s: float) -> ToolResult:
        self.calls.append((name, argument))
        return self.result


def test_the_request_is_constrained_to_one_short_program() -> None:
    llm = replying("print(30 - 12)")
    assert write_program(llm, QUESTION) == "print(30 - 12)"
    (request,) = llm.requests
    assert request.purpose == "program"
    assert request.json_schema is not None
    program_schema = request.json_schema["properties"]["program"]
    assert program_schema["maxLength"] == MAX_PROGRAM_CHARS
    assert request.json_schema["required"] == ["program"]
    assert request.messages[-1].content == f"Question: {QUESTION}"


def test_the_prompt_is_short_and_names_the_allowed_modules() -> None:
    messages = program_messages(QUESTION)
    assert messages[0].content == PROGRAM_SYSTEM
    assert "math, fractions, statistics, datetime, itertools, re" in PROGRAM_SYSTEM
    # one worked example, as a reply in the shape the schema asks for
    assert json.loads(messages[2].content)["program"].startswith("print(")
    assert sum(len(message.content) for message in messages) < 600


def test_a_fence_around_the_program_is_removed() -> None:
    llm = replying("```python\nx = 30 - 12\nprint(x)\n```")
    assert write_program(llm, QUESTION) == "x = 30 - 12\nprint(x)"


def test_a_copy_of_the_worked_example_is_refused() -> None:
    example = json.loads(program_messages(QUESTION)[2].content)["program"]
    with pytest.raises(LLMOutputError, match="copied the worked example"):
        write_program(replying(example), QUESTION)
    toolbox = RecordingToolBox(ToolResult(ok=True, output="x", error=None, seconds=0.0))
    run = solve_with_program(replying(example), toolbox, QUESTION, tool_timeout_s=5.0)
    assert not run.tool_run.ok
    assert toolbox.calls == []


def test_a_reply_that_never_validates_raises_after_one_retry() -> None:
    llm = ScriptedLLM(lambda request: "print(30 - 12)")
    with pytest.raises(StructuredOutputError):
        write_program(llm, QUESTION)
    assert len(llm.requests) == 2


def test_solve_runs_the_written_program_with_the_program_tool() -> None:
    output = "The model wrote this program; it printed 18\nAnswer: 18"
    toolbox = RecordingToolBox(ToolResult(ok=True, output=output, error=None, seconds=0.1))
    run = solve_with_program(replying("print(30 - 12)"), toolbox, QUESTION, tool_timeout_s=5.0)
    assert toolbox.calls == [(PROGRAM_TOOL, "print(30 - 12)")]
    assert run.tool_run.argument == "print(30 - 12)"
    assert run.trace_outputs() == {
        "ok": True,
        "program": "print(30 - 12)",
        "output": "18",
        "provenance": "The model wrote this program; it printed 18",
        "fully_parsed": False,
    }


def test_solve_end_to_end_through_the_sandbox() -> None:
    toolbox = ToolRegistry([ProgramTool()])
    program = "import datetime\nprint((datetime.date(2025, 1, 1) - datetime.date(2024, 1, 1)).days)"
    run = solve_with_program(replying(program), toolbox, "Days in 2024?", tool_timeout_s=30.0)
    assert run.output == "366"
    assert run.provenance == "The model wrote this program; it printed 366"


def test_a_failing_program_is_a_failed_run_with_no_output() -> None:
    toolbox = ToolRegistry([ProgramTool()])
    run = solve_with_program(replying("print(1 / 0)"), toolbox, QUESTION, tool_timeout_s=30.0)
    assert not run.tool_run.ok
    assert run.tool_run.error is not None
    assert "ZeroDivisionError" in run.tool_run.error
    assert run.trace_outputs()["output"] is None
    assert run.provenance is None


def test_no_valid_program_is_a_failed_run_and_the_tool_is_not_called() -> None:
    toolbox = RecordingToolBox(ToolResult(ok=True, output="x", error=None, seconds=0.0))
    llm = ScriptedLLM(lambda request: "no json here")
    run = solve_with_program(llm, toolbox, QUESTION, tool_timeout_s=5.0)
    assert run.program is None
    assert not run.tool_run.ok
    assert run.tool_run.error is not None
    assert run.tool_run.error.startswith("the model wrote no program")
    assert toolbox.calls == []


def test_a_model_fault_is_a_failed_run() -> None:
    def timeout(request: LLMRequest) -> str:
        raise LLMTimeoutError("too slow")

    toolbox = RecordingToolBox(ToolResult(ok=True, output="x", error=None, seconds=0.0))
    run = solve_with_program(ScriptedLLM(timeout), toolbox, QUESTION, tool_timeout_s=5.0)
    assert not run.tool_run.ok
    assert "too slow" in (run.tool_run.error or "")


def test_a_spent_budget_passes_through() -> None:
    def spent(request: LLMRequest) -> str:
        raise BudgetExceededError("no calls left")

    toolbox = RecordingToolBox(ToolResult(ok=True, output="x", error=None, seconds=0.0))
    with pytest.raises(BudgetExceededError):
        solve_with_program(ScriptedLLM(spent), toolbox, QUESTION, tool_timeout_s=5.0)
