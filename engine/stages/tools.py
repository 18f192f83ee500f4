"""Stage 7, tools: a second policy chooses a tool (or none), with the same cold-start rule.

Running the tool never raises: a failure is recorded as an outcome for that tool (source "tool",
reward 0), which teaches the tool policy and nothing else.
"""

from collections.abc import Collection, Mapping

from engine.domain.models import ToolRun
from engine.domain.options import Options, answer_in_form, option_index
from engine.domain.ports import ToolBox
from engine.domain.records import NO_TOOL
from engine.errors import ThinkPathError

# The exact tools, in the order a new kind of query asks them whether they read the question
# (`reading_tool`): the most specific readers first, so that "7 km in miles" is the units tool's
# and "2, 4, 8, what comes next?" the sequence reader's before the calculator sees the numbers.
EXACT_ORDER = ("units", "numbers", "text", "calculator")


# Why direct arms live in the tool role: "answer with the tool's result itself, no answer call"
# is a choice about how a tool is used, learned per kind of query like the tool itself. A second
# arm per exact tool ("calculator+direct") lets the existing tool policy learn it with no new
# role, outcome source or checkpoint state; the cost is one more cold arm per exact tool.
DIRECT = "+direct"
EXACT_TOOLS = frozenset(EXACT_ORDER)


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


def as_option(tool_run: ToolRun, options: Options) -> str | None:
    """A direct arm's value as one of the question's options, in the form the question asks
    for (its letter, or its text); None when the value is none of them.

    >>> run = ToolRun(tool="numbers", argument="q", ok=True, value="0.7", fully_parsed=True)
    >>> as_option(run, Options(("0.7", "0.65"), "word"))
    '0.7'
    >>> as_option(run, Options(("7", "6.5"), "letter", ("A", "B"))) is None
    True
    """
    index = option_index(options, tool_run.value or "")
    return None if index is None else answer_in_form(options, index)


def default_argument(tool: str, query: str) -> str:  # noqa: ARG001 - kept per tool on purpose
    """The input a tool gets when the model suggested none: the query itself.

    Every registered tool extracts what it needs from plain text (the calculator finds the
    arithmetic in a sentence), which is cheaper and more reliable than asking the model.

    >>> default_argument("calculator", "What is 12 * (3 + 4)?")
    'What is 12 * (3 + 4)?'
    """
    return query


def reading_tool(
    toolbox: ToolBox, query: str, available: Collection[str], timeout_s: float
) -> str | None:
    """The exact tool arm that reads the whole question on its own, if one is `available`.

    How a kind of query starts its tool: each exact tool is asked, in a fixed order, whether it
    reads the whole question (it refuses in milliseconds when it does not), and the first that
    does is tried, on its direct arm where there is one: a result read from the whole question
    is the answer, and the 135M model, asked to write it out, often loses it. No cue table
    decides; the tools' own readers do (`engine.adapters.tools.reading`).
    """
    names = set(toolbox.names())
    for tool in EXACT_ORDER:
        arms = [arm for arm in (tool + DIRECT, tool) if arm in available]
        if tool not in names or not arms:
            continue
        run = run_tool(toolbox, tool, query, timeout_s)
        if run is not None and run.ok and run.fully_parsed:
            return arms[0]
    return None


def fallback_candidates(
    probabilities: Mapping[str, float], tried: Collection[str], cold: Collection[str]
) -> dict[str, float]:
    """The tool arms a fallback may draw after `tried` refused, with the policy's probabilities.

    Exact tools not yet tried come first (each reads the question on its own, or refuses at
    once). When every exact tool has refused, "none" is a candidate like the others, and a tool
    that is not exact (a search, a program) is one only where this kind has learned that it
    helps: it is warm here and the policy gives it at least the probability of "none".
    (Falling back to a search by default pasted passages about reasoning strategies into 53 of
    120 public questions, and 50 of them were answered wrongly.)

    >>> probabilities = {"none": 0.2, "calculator": 0.1, "units": 0.1, "local_search": 0.6}
    >>> fallback_candidates(probabilities, ["calculator"], cold=["local_search"])
    {'units': 0.1}
    >>> fallback_candidates(probabilities, ["calculator", "units"], cold=["local_search"])
    {'none': 0.2}
    >>> fallback_candidates(probabilities, ["calculator", "units"], cold=[])
    {'none': 0.2, 'local_search': 0.6}
    """
    ran = {split_arm(arm)[0] for arm in tried}
    untried = {arm: p for arm, p in probabilities.items() if split_arm(arm)[0] not in ran}
    exact = {arm: p for arm, p in untried.items() if split_arm(arm)[0] in EXACT_TOOLS}
    if exact:
        return exact
    floor = untried.get(NO_TOOL, 0.0)
    return {
        arm: p for arm, p in untried.items() if arm == NO_TOOL or (arm not in cold and p >= floor)
    }


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
