"""Every tool that reads plain English ends quickly on input built to make a pattern backtrack."""

import contextlib

import pytest

from engine.adapters.tools import Calculator, NumberList, TextFacts, UnitConverter
from engine.adapters.tools.calculator import MAX_INPUT_CHARS
from engine.domain.ports import Tool
from engine.errors import ToolError

# Inputs at the length limit built to make a careless pattern backtrack without end.
HOSTILE = [
    "1" + " " * 190 + "x 2",
    " " * MAX_INPUT_CHARS,
    "'" * MAX_INPUT_CHARS,
    "a'" * 100,
    "1," * 100,
    "- " * 100,
    "second to " * 20,
    "the word " * 22,
    "1 and " * 33,
    "1 more " * 28,
    "twenty " * 28,
    "convert 1 km to " * 12,
]


@pytest.fixture(scope="module", autouse=True)
def _libraries_loaded() -> None:
    # pint and quantulum3 load on the first conversion (seconds); the bound is on the reading.
    UnitConverter().run("Convert 1 km to m")


@pytest.mark.timeout(5, func_only=True)
@pytest.mark.parametrize("tool", [Calculator(), UnitConverter(), TextFacts(), NumberList()])
@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_input_ends_quickly(tool: Tool, text: str) -> None:
    with contextlib.suppress(ToolError):  # a refusal is as good as an answer: time is tested
        tool.run(text)
