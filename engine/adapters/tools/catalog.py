"""The standard tool set, for the composition root to filter with the settings' allow-list."""

from engine.adapters.tools.calculator import Calculator
from engine.adapters.tools.search import local_search_tool, web_search_tool
from engine.core.ports import Tool
from retrieval.port import Searcher

__all__ = ["standard_tools"]


def standard_tools(
    local_searcher: Searcher | None = None, web_searcher: Searcher | None = None
) -> list[Tool]:
    """The calculator, plus a search tool for each searcher given.

    >>> from engine.adapters.tools import ToolRegistry
    >>> ToolRegistry(standard_tools(), allowed=["calculator"]).names()
    ['none', 'calculator']
    """
    tools: list[Tool] = [Calculator()]
    if local_searcher is not None:
        tools.append(local_search_tool(local_searcher))
    if web_searcher is not None:
        tools.append(web_search_tool(web_searcher))
    return tools
