"""Stage 7, tools: a second policy chooses a tool (or none), with the same cold-start rule.

Running the tool never raises: a failure is recorded as an outcome for that tool (source "tool",
reward 0), which teaches the tool policy and nothing else.
"""

import re
from collections.abc import Collection

from engine.domain.features import family
from engine.domain.models import ToolRun
from engine.domain.ports import ToolBox
from engine.domain.records import NO_TOOL
from engine.errors import ThinkPathError

# The tool a kind of query starts from, before any outcome: what the query *is* decides it, not
# the model's rating (the 135M model sent arithmetic and unit questions to "none" although the
# calculator was there). Only the cold start follows it: once the tool has outcomes for this kind
# of query, the tool policy's posterior decides, so a wrong prior costs a few pulls, no more.
FAMILY_TOOLS = {
    "arithmetic": "calculator",
    "unit_conversion": "units",
    "letters": "text",
    "letter_position": "text",
}
_SEQUENCE = re.compile(
    r"\b(?:sequence|series|what comes next|next (?:number|term)|continue the pattern)\b",
    re.IGNORECASE,
)


# Why direct arms live in the tool role: "answer with the tool's result itself, no answer call"
# is a choice about how a tool is used, learned per kind of query like the tool itself. A second
# arm per exact tool ("calculator+direct") lets the existing tool policy learn it with no new
# role, outcome source or checkpoint state; the cost is one more cold arm per exact tool.
DIRECT = "+direct"
EXACT_TOOLS = frozenset({*FAMILY_TOOLS.values(), "numbers"})


def tool_arms(names: Collection[str]) -> list[str]:
    """The tool policy's arms: every tool, and a direct arm after each exact tool.

    >>> tool_arms(["none", "calculator", "web_search"])
    ['none', 'calculator', 'calculator+direct', 'web_search']
    """
    arms: list[str] = []
    for name in names:
        arms += [name, name + DIRECT] if name in EXACT_TOOLS else [name]
    return arms


def split_arm(arm: str) -> tuple[str, bool]:
    """The tool an arm runs, and whether it answers directly with a fully parsed result.

    >>> split_arm("units+direct"), split_arm("units")
    (('units', True), ('units', False))
    """
    if arm.endswith(DIRECT):
        return arm[: -len(DIRECT)], True
    return arm, False


def direct_answer(tool_run: ToolRun | None) -> str | None:
    """The answer a direct arm gives: the tool's value, only when the whole question was read.

    >>> run = ToolRun(tool="calculator", argument="q", ok=True, value="18", fully_parsed=True)
    >>> direct_answer(run), direct_answer(run.model_copy(update={"fully_parsed": False}))
    ('Answer: 18', None)
    """
    if tool_run is None or not tool_run.ok or not tool_run.fully_parsed or not tool_run.value:
        return None
    return f"Answer: {tool_run.value}"


def default_argument(tool: str, query: str) -> str:  # noqa: ARG001 - kept per tool on purpose
    """The input a tool gets when the model suggested none: the query itself.

    Every registered tool extracts what it needs from plain text (the calculator finds the
    arithmetic in a sentence), which is cheaper and more reliable than asking the model.

    >>> default_argument("calculator", "What is 12 * (3 + 4)?")
    'What is 12 * (3 + 4)?'
    """
    return query


def prior_tool(query: str, available: Collection[str]) -> str | None:
    """The tool arm this kind of query starts from (cold start), if it is available; else None.

    An exact tool starts on its direct arm where there is one: a result read from the whole
    question is the answer, and the 135M model, asked to write it out, often loses it (given
    "17 * 23 = 391" it answered "What is 17 * 23?" with a plan and no number). When the tool
    cannot read the whole question the direct arm falls back to the model's answer, so starting
    there costs nothing; the policy then learns, per kind of query, which arm answers better.

    >>> prior_tool("What is 17 + 25?", ["none", "calculator", "calculator+direct"])
    'calculator+direct'
    >>> prior_tool("What is 17 + 25?", ["none", "calculator"])
    'calculator'
    >>> prior_tool("What comes next: 2, 4, 8, 16?", ["none", "calculator", "numbers"])
    'numbers'
    >>> prior_tool("Who wrote Hamlet?", ["none", "calculator"]) is None
    True
    """
    tool = "numbers" if _SEQUENCE.search(query) else FAMILY_TOOLS.get(family(query))
    if tool is None:
        return None
    for arm in (tool + DIRECT, tool):
        if arm in available:
            return arm
    return None


def run_tool(toolbox: ToolBox, tool: str, argument: str, timeout_s: float) -> ToolRun | None:
    """Run the chosen tool (None for "none"); any failure comes back as data, not an exception."""
    if tool == NO_TOOL:
        return None
    try:
        result = toolbox.run(tool, argument, timeout_s)
    except ThinkPathError as error:  # e.g. a tool taken off the allow-list since it was chosen
        return ToolRun(tool=tool, argument=argument, ok=False, error=str(error))
    return ToolRun(
        tool=tool,
        argument=argument,
        ok=bool(result.ok),
        output=result.output,
        error=result.error,
        seconds=result.seconds,
        value=result.value,
        provenance=result.provenance,
        fully_parsed=bool(result.ok and result.fully_parsed),
    )
