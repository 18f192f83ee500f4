"""The standard tool set, for the composition root to filter with the settings' allow-list."""

from engine.adapters.tools.answer_line import AnswerLine
from engine.adapters.tools.calculator import Calculator
from engine.adapters.tools.number_list import NumberList
from engine.adapters.tools.program import ProgramTool
from engine.adapters.tools.search import local_search_tool, web_search_tool
from engine.adapters.tools.text_facts import TextFacts
from engine.adapters.tools.units import UnitConverter
from engine.domain.ports import Tool
from retrieval.port import Searcher

__all__ = ["standard_tools"]


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
