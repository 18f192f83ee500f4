"""Stage 7, tools: a second policy chooses a tool (or none), with the same cold-start rule.

Running the tool never raises: a failure is recorded as an outcome for that tool (source "tool",
reward 0), which teaches the tool policy and nothing else.
"""

from engine.core.models import ToolRun
from engine.core.ports import ToolBox
from engine.core.records import NO_TOOL


def default_argument(tool: str, query: str) -> str:  # noqa: ARG001 - kept per tool on purpose
    """The input a tool gets when the model suggested none: the query itself.

    Every registered tool extracts what it needs from plain text (the calculator finds the
    arithmetic in a sentence), which is cheaper and more reliable than asking the model.

    >>> default_argument("calculator", "What is 12 * (3 + 4)?")
    'What is 12 * (3 + 4)?'
    """
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
