"""Tools the answer stage may call, behind one registry with an allow-list and deadlines.

>>> from engine.tools import Calculator, ToolRegistry
>>> registry = ToolRegistry([Calculator()])
>>> registry.describe()["none"]
'Use no tool; answer from the question and the notes alone.'
"""

from engine.tools.calculator import Calculator
from engine.tools.catalog import standard_tools
from engine.tools.port import NO_TOOL, NoTool, Tool, ToolResult
from engine.tools.registry import ToolRegistry
from engine.tools.search import SearchTool, local_search_tool, web_search_tool

__all__ = [
    "NO_TOOL",
    "Calculator",
    "NoTool",
    "SearchTool",
    "Tool",
    "ToolRegistry",
    "ToolResult",
    "local_search_tool",
    "standard_tools",
    "web_search_tool",
]
