"""Tools the answer stage may call, behind one registry with an allow-list and deadlines.

>>> from engine.adapters.tools import Calculator, ToolRegistry
>>> registry = ToolRegistry([Calculator()])
>>> registry.describe()["none"]
'Use no tool; answer from the question and the notes alone.'
"""

from engine.adapters.tools.calculator import Calculator
from engine.adapters.tools.catalog import standard_tools
from engine.adapters.tools.no_tool import NoTool
from engine.adapters.tools.number_list import NumberList
from engine.adapters.tools.registry import ToolRegistry
from engine.adapters.tools.search import SearchTool, local_search_tool, web_search_tool
from engine.adapters.tools.text_facts import TextFacts
from engine.adapters.tools.units import UnitConverter
from engine.domain.ports import Tool
from engine.domain.records import NO_TOOL, ToolResult

__all__ = [
    "NO_TOOL",
    "Calculator",
    "NoTool",
    "NumberList",
    "SearchTool",
    "TextFacts",
    "Tool",
    "ToolRegistry",
    "ToolResult",
    "UnitConverter",
    "local_search_tool",
    "standard_tools",
    "web_search_tool",
]
