"""The program tool: runs its argument as a program and says that the model wrote it."""

import pytest

from engine.adapters.tools import ToolRegistry, standard_tools
from engine.adapters.tools.program import ProgramTool, program_provenance
from engine.adapters.tools.sandbox import SandboxLimits
from engine.domain.records import PROGRAM_TOOL
from engine.errors import ToolError


def test_output_states_provenance_then_the_answer_line() -> None:
    output = ProgramTool().run("import statistics\nprint(statistics.mean([1, 2, 6]))")
    assert output.splitlines() == ["The model wrote this program; it printed 3", "Answer: 3"]


def test_output_never_calls_the_result_exact() -> None:
    assert "exact" not in ProgramTool().run("print(2 ** 10)").lower()
    assert program_provenance("1024") == "The model wrote this program; it printed 1024"


def test_a_question_instead_of_a_program_is_refused() -> None:
    with pytest.raises(ToolError, match="not Python"):
        ProgramTool().run("A bus has 30 seats and 12 are empty. How many are taken?")


def test_limits_are_passed_to_the_sandbox() -> None:
    tool = ProgramTool(limits=SandboxLimits(program_chars=10))
    with pytest.raises(ToolError, match="longer than 10 characters"):
        tool.run("print(1 + 2 + 3)")


def test_registered_in_the_standard_set_and_run_through_the_registry() -> None:
    registry = ToolRegistry(standard_tools(), allowed=[PROGRAM_TOOL])
    assert registry.names() == ["none", PROGRAM_TOOL]
    assert "math, fractions" in registry.describe()[PROGRAM_TOOL]
    result = registry.run(PROGRAM_TOOL, "print(sum(range(1, 101)))", timeout_s=30.0)
    assert result.ok
    assert result.output.endswith("\nAnswer: 5050")


def test_a_hostile_program_is_a_failed_result_not_an_exception() -> None:
    registry = ToolRegistry([ProgramTool()])
    result = registry.run(PROGRAM_TOOL, "import os\nprint(os.environ)", timeout_s=30.0)
    assert not result.ok
    assert result.error is not None
    assert "import of 'os' is not allowed" in result.error
