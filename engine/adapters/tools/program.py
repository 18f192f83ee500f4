"""The program tool: runs a short Python program (which the model wrote) in the sandbox.

Its argument is the program's text, not the question: the tool port takes one string, and the
stage that asks the model for a program (`engine.stages.program.write_program`) lives on another
floor, so the tool stays a thin adapter over `engine.adapters.tools.sandbox`. Given a question
instead of a program (the pipeline's default argument), it refuses: English is not Python.

Its result is never called exact. The model chose what to compute, so the output says so:

>>> print(ProgramTool().run("print(sum(range(1, 101)))"))
The model wrote this program; it printed 5050
Answer: 5050
"""

from dataclasses import dataclass, field

from engine.adapters.tools.sandbox import SandboxLimits, run_program
from engine.domain.records import PROGRAM_TOOL

__all__ = ["ProgramTool", "program_provenance"]


def program_provenance(printed: str) -> str:
    """The sentence that says where a program's result came from.

    >>> program_provenance("18")
    'The model wrote this program; it printed 18'
    """
    return f"The model wrote this program; it printed {printed}"


@dataclass(frozen=True)
class ProgramTool:
    """Runs its argument as a Python program in the sandbox; its last printed line is the result.

    Raises `ToolError` (which the registry turns into a failed result) when the program is
    refused, fails, passes a limit or prints nothing.
    """

    limits: SandboxLimits = field(default_factory=SandboxLimits)

    @property
    def name(self) -> str:
        return PROGRAM_TOOL

    @property
    def description(self) -> str:
        return (
            "Run a short Python program (an expression, or lines that print the answer) using "
            "only math, fractions, statistics, datetime, itertools and re; returns its last "
            "printed line."
        )

    def run(self, argument: str) -> str:
        result = run_program(argument, self.limits).result
        return f"{program_provenance(result)}\nAnswer: {result}"
