"""The program stage: the model writes a short Python program, then the program tool runs it.

Why a stage and not the tool itself: the tool port takes one string and adapters may not import
stages, so the tool (`engine.adapters.tools.program`) runs a program it is given, and this stage
writes that program with one grammar-constrained call (`ask_structured`: the reply must be
`{"program": "..."}`, validated, retried once). The pipeline calls `solve_with_program` when the
tool policy picks `PROGRAM_TOOL`, instead of handing the tool the query.

The prompt is short and shows one worked example, because the embedded model (SmolLM2-135M)
copies a shape far better than it follows a description of one.

>>> from engine.adapters.llm.scripted import ScriptedLLM
>>> write_program(ScriptedLLM(lambda request: '{"program": "print(30 - 12)"}'), "A bus ...")
'print(30 - 12)'
"""

import json
from dataclasses import dataclass
from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from engine.domain.models import ToolRun
from engine.domain.ports import LLM, ToolBox
from engine.domain.records import PROGRAM_TOOL, ChatMessage
from engine.domain.structured import ask_structured
from engine.errors import LLMError, LLMOutputError
from engine.stages.tools import run_tool

__all__ = [
    "PROGRAM_SYSTEM",
    "ProgramReply",
    "ProgramRun",
    "program_messages",
    "solve_with_program",
    "write_program",
]

# Longer programs are not "short", and a 135M model that runs on writes noise, not code.
MAX_PROGRAM_CHARS = 400
_ANSWER_PREFIX = "Answer: "  # the program tool's last line (`engine.adapters.tools.program`)

PROGRAM_SYSTEM = (
    "Write a short Python program that prints the answer to the question. Use only these "
    "modules: math, fractions, statistics, datetime, itertools, re. Reply with JSON only."
)
_EXAMPLE_QUESTION = (
    "Question: Sam has 4 boxes with 6 pens in each and gives away 5 pens. How many pens are left?"
)
_EXAMPLE_PROGRAM = "print(4 * 6 - 5)"
_EXAMPLE_REPLY = json.dumps({"program": _EXAMPLE_PROGRAM})


class ProgramReply(BaseModel):
    """The reply the grammar allows: one program, as a JSON string."""

    model_config = ConfigDict(extra="forbid")

    program: str = Field(min_length=1, max_length=MAX_PROGRAM_CHARS)


def program_messages(query: str) -> tuple[ChatMessage, ...]:
    """The prompt: the rule, one worked example, then the question."""
    return (
        ChatMessage("system", PROGRAM_SYSTEM),
        ChatMessage("user", _EXAMPLE_QUESTION),
        ChatMessage("assistant", _EXAMPLE_REPLY),
        ChatMessage("user", f"Question: {query}"),
    )


def write_program(
    llm: LLM,
    query: str,
    *,
    max_tokens: int = 160,
    timeout_s: float = 60.0,
    seed: int | None = None,
    retries: int = 1,
) -> str:
    """One constrained call: the program the model writes for `query` (stripped, never empty).

    Raises `StructuredOutputError` when no reply validates (after one retry), `LLMOutputError`
    when the model copied the worked example; other `LLMError`s and `BudgetExceededError` pass
    through unchanged.
    """
    reply = ask_structured(
        llm,
        program_messages(query),
        ProgramReply,
        purpose="program",
        max_tokens=max_tokens,
        timeout_s=timeout_s,
        seed=seed,
        retries=retries,
    )
    program = _strip_json_tail(_strip_fence(reply.program))
    # The 135M model often copies the example; run, the copy would print the example's answer.
    if program == _EXAMPLE_PROGRAM:
        raise LLMOutputError("the model copied the worked example instead of writing a program")
    return program


def _strip_fence(program: str) -> str:
    # A model trained on markdown may wrap the code in a fence even inside the JSON string.
    lines = program.strip().splitlines()
    if len(lines) >= 2 and lines[0].startswith("```") and lines[-1].strip() == "```":
        lines = lines[1:-1]
    return "\n".join(lines).strip() or program.strip()


def _strip_json_tail(program: str) -> str:
    """The program without a `}` the model carried over from the JSON object around it, where
    that brace alone keeps it from compiling (Qwen2.5-Coder wrote `print(3 * 8 / 5)}` on 4 of
    40 word problems). Compiling runs nothing; any other syntax error is left for the sandbox
    to report.

    >>> _strip_json_tail("print(3 * 8 / 5)}"), _strip_json_tail("d = {1: 2}\\nprint(d)")
    ('print(3 * 8 / 5)', 'd = {1: 2}\\nprint(d)')
    """
    if not program.endswith("}") or _compiles(program):
        return program
    trimmed = program[:-1].rstrip()
    return trimmed if _compiles(trimmed) else program


def _compiles(program: str) -> bool:
    try:
        compile(program, "<program>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


@dataclass(frozen=True)
class ProgramRun:
    """A program the model wrote and what running it gave; never a fully parsed result."""

    program: str | None  # None when the model wrote no valid program
    tool_run: ToolRun

    # The model chose what to compute: the result rests on its reading of the question, so it is
    # never presented as exact (issue 18, "honest provenance").
    fully_parsed: ClassVar[bool] = False

    @property
    def provenance(self) -> str | None:
        """ "The model wrote this program; it printed X", when the program ran."""
        if not self.tool_run.ok or not self.tool_run.output:
            return None
        return self.tool_run.output.splitlines()[0]

    @property
    def output(self) -> str | None:
        """The program's result (its last printed line), when it ran."""
        if not self.tool_run.ok:
            return None
        last = self.tool_run.output.splitlines()[-1] if self.tool_run.output else ""
        return last.removeprefix(_ANSWER_PREFIX) if last.startswith(_ANSWER_PREFIX) else None

    def trace_outputs(self) -> dict[str, object]:
        """What the tool step's trace entry should carry for a program run."""
        return {
            "ok": self.tool_run.ok,
            "program": self.program,
            "output": self.output,
            "provenance": self.provenance,
            "fully_parsed": self.fully_parsed,
        }


def solve_with_program(
    llm: LLM,
    toolbox: ToolBox,
    query: str,
    *,
    tool_timeout_s: float,
    llm_timeout_s: float = 60.0,
    max_tokens: int = 160,
    seed: int | None = None,
    retries: int = 1,
) -> ProgramRun:
    """Ask the model for a program for `query`, run it with the program tool; never raises for
    a bad program or reply.

    A reply that never validates, or a model fault, is a failed run (a `tool` outcome of 0, like
    any tool failure), so the tool policy learns where the model writes no usable program.
    `retries` bounds the structured retries of the program call (the caller's call budget).
    `BudgetExceededError` passes through: the engine's budget is not the tool's failure.
    """
    try:
        program = write_program(
            llm, query, max_tokens=max_tokens, timeout_s=llm_timeout_s, seed=seed, retries=retries
        )
    except LLMError as error:
        failed = ToolRun(
            tool=PROGRAM_TOOL, argument="", ok=False, error=f"the model wrote no program: {error}"
        )
        return ProgramRun(program=None, tool_run=failed)
    tool_run = run_tool(toolbox, PROGRAM_TOOL, program, tool_timeout_s)
    if tool_run is None:  # only for the "none" tool, never this one
        raise AssertionError("run_tool returned no run for the program tool")
    return ProgramRun(program=program, tool_run=tool_run)
