"""The standard tool set, for the composition root to filter with the settings' allow-list."""

from collections.abc import Iterable

from engine.adapters.tools.answer_line import AnswerLine
from engine.adapters.tools.calculator import Calculator
from engine.adapters.tools.number_list import NumberList
from engine.adapters.tools.program import ProgramTool
from engine.adapters.tools.search import local_search_tool, web_search_tool
from engine.adapters.tools.text_facts import TextFacts
from engine.adapters.tools.unit_libraries import libraries
from engine.adapters.tools.units import UnitConverter
from engine.domain.ports import Tool
from retrieval.port import Searcher

__all__ = ["load_tool_libraries", "standard_tools"]


def standard_tools(
    local_searcher: Searcher | None = None, web_searcher: Searcher | None = None
) -> list[Tool]:
    """The exact tools (calculator, units, text, numbers), the program tool (its argument is a
    program the model wrote: `engine.stages.program`), plus a search tool per searcher given.

    The exact tools compute what a small model gets wrong (sums, conversions, letters in a word,
    the next term of a sequence); each refuses a question it cannot read, so the tool policy
    learns which kind of question each one serves.

    >>> from engine.adapters.tools import ToolRegistry
    >>> ToolRegistry(standard_tools(), allowed=["calculator", "units"]).names()
    ['none', 'calculator', 'units']
    """
    # The calculator's "expression = result" already ends with its value (and measured no gain
    # from the answer line); the others state theirs in a sentence.
    exact = [AnswerLine(UnitConverter()), AnswerLine(TextFacts()), AnswerLine(NumberList())]
    tools: list[Tool] = [Calculator(), *exact, ProgramTool()]
    if local_searcher is not None:
        tools.append(local_search_tool(local_searcher))
    if web_searcher is not None:
        tools.append(web_search_tool(web_searcher))
    return tools


# The standard tools whose first use loads libraries: the units tool, and the calculator, whose
# word problems read rates over time units ("20 pages a day ... in a week") with pint.
_UNIT_LIBRARY_USERS = frozenset({"units", "calculator"})


def load_tool_libraries(allowed: Iterable[str]) -> None:
    """Load now what the `allowed` standard tools would load on their first use (a service
    starting, so that no user waits for it).

    Why: pint and quantulum3 take 3-4 s of CPU to load (`unit_libraries`); on a busy two-core
    machine the first unit question of a fresh service waited 25 s for them, with no model call.
    The other exact tools load nothing on first use (a fresh process answers each first question
    in about a millisecond). Without this, the libraries still load on first use, as before.
    """
    if _UNIT_LIBRARY_USERS.intersection(allowed):
        libraries()
