"""Stage 7, tools: a second policy chooses a tool (or none), with the same cold-start rule.

Running the tool never raises: a failure is recorded as an outcome for that tool (source "tool",
reward 0), which teaches the tool policy and nothing else.
"""

import re

from engine.contracts import NO_TOOL, ToolBox
from engine.models import ToolRun

# The longest run of arithmetic characters holding a digit and an operator: what a calculator
# can use from a question like "What is 12 * (3 + 4)?".
_ARITHMETIC = re.compile(r"[\d\s.+\-*/()^%]+")


def default_argument(tool: str, query: str) -> str:
    """The input a tool gets when the model did not suggest one: cheap and deterministic.

    >>> default_argument("calculator", "What is 12 * (3 + 4)?")
    '12 * (3 + 4)'
    >>> default_argument("local_search", "leap years")
    'leap years'
    """
    if tool == "calculator":
        runs = [
            run.strip()
            for run in _ARITHMETIC.findall(query)
            if re.search(r"\d", run) and re.search(r"[+\-*/^%]", run)
        ]
        if runs:
            return str(max(runs, key=len))
    return query


def run_tool(toolbox: ToolBox, tool: str, argument: str, timeout_s: float) -> ToolRun | None:
    """Run the chosen tool (None for "none"); its failure comes back as data, not an exception."""
    if tool == NO_TOOL:
        return None
    result = toolbox.run(tool, argument, timeout_s)
    return ToolRun(
        tool=tool,
        argument=argument,
        ok=bool(result.ok),
        output=result.output,
        error=result.error,
        seconds=result.seconds,
    )
