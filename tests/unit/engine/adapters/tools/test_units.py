"""The units tool: one conversion read whole (quantulum3 finds the quantities, pint converts)."""

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.adapters.tools import ToolRegistry
from engine.adapters.tools.unit_libraries import how_many
from engine.adapters.tools.units import MAX_INPUT_CHARS, UnitConverter, convert
from engine.domain.ports import Tool
from engine.errors import ToolRefusalError


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("Convert 7 kilometres to metres.", "7000"),
        ("Convert 3 feet to inches", "36"),
        ("How many grams are in 2.5 kilograms?", "2500"),
        ("How many minutes is 3 hours?", "180"),
        ("5 miles in km", "8.04672"),
        ("What's 6 ft in metres?", "1.8288"),
        ("Express 1500 metres in kilometres", "1.5"),
        ("5 kg is how many pounds?", "11.0231131092"),
        ("Change 3 days into hours", "72"),
        ("1 imperial gallon in litres", "4.54609"),
        ("3 sq ft to sq in", "432"),
        ("100 km/h in m/s", "27.7777777778"),
        ("1 kWh in kJ", "3600"),
        ("How many seconds are in an hour?", "3600"),
        ("How many square metres in 2 hectares?", "20000"),
        ("convert 4,000 metres to kilometres", "4"),
        ("How many millimetres are in twelve centimetres?", "120"),
        ("How many hours is one second?", "0.000277777777778"),
    ],
)
def test_converts_a_conversion_read_whole(question: str, value: str) -> None:
    answer = convert(question)
    assert answer.value == value
    assert answer.fully_parsed
    assert answer.provenance.startswith("parsed the whole question and converted ")


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("What is 212 °F in °C?", "100"),
        ("Convert 37 degrees Celsius to Fahrenheit", "98.6"),
        ("What is 50 degrees F in C?", "10"),
        ("What is 0 °C in kelvin?", "273.15"),
        ("Convert -40 °F to °C", "-40"),
    ],
)
def test_temperatures_use_offset_scales(question: str, value: str) -> None:
    assert convert(question).value == value


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("How many metres is 2 km plus 350 m?", "2350"),
        ("Convert 6 feet 2 inches to centimetres", "187.96"),
        ("What is 1 hour and 15 minutes in minutes?", "75"),
        ("What is 4 km minus 250 m in metres?", "3750"),
        ("What is 300 g less than 2 kg, in grams?", "1700"),
        ("How many grams is three quarters of a kilogram?", "750"),
        ("half a litre in millilitres", "500"),
        ("how many minutes in two and a half hours", "150"),
        ("The pool is 25 m long. How many feet is that?", "82.0209973753"),
        ("My parcel weighs 3 kg. What is that in grams?", "3000"),
    ],
)
def test_sums_fractions_and_a_quantity_named_before(question: str, value: str) -> None:
    assert convert(question).value == value


@pytest.mark.parametrize(
    ("question", "why"),
    [
        ("Convert 5 kilograms to metres", "cannot be converted"),
        ("How many letters are in Mississippi?", "not a quantity with a unit"),
        ("How many kilograms are 3 apples?", "not a unit pint knows"),
        # Two quantities before "that": which one is meant is not the tool's to guess.
        ("A runner covers 10 km in 50 minutes. How far is that in miles?", "not a quantity"),
        ("A cyclist rides 12 km and then 3 km. How many miles is that?", "not one"),
        # A word in the context that changes the quantity.
        ("The rope was 6 m before I cut off half. What is that in cm?", "not a quantity|'before'"),
        ("Convert 5 F to C", "cannot be converted"),  # farad and coulomb, without "degrees"
        ("Who invented the metre?", "not a conversion"),
        ("Convert 5 metres", "not a conversion"),
        ("x" * (MAX_INPUT_CHARS + 1), "longer than"),
    ],
)
def test_refuses_what_it_cannot_read_whole(question: str, why: str) -> None:
    with pytest.raises(ToolRefusalError, match=why):
        convert(question)


def test_how_many_counts_a_unit_in_another() -> None:
    assert how_many("day", "week") == 7
    assert how_many("minute", "hour") == 60


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 10**6))
def test_metres_to_centimetres_is_a_factor_of_100(metres: int) -> None:
    assert convert(f"Convert {metres} metres to centimetres").value == str(metres * 100)


def test_is_a_tool_the_registry_runs() -> None:
    tool: Tool = UnitConverter()
    registry = ToolRegistry([tool])
    ok = registry.run("units", "Convert 3 feet to inches", timeout_s=60)
    assert (ok.ok, ok.value, ok.fully_parsed) == (True, "36", True)
    assert ok.provenance == "parsed the whole question and converted 3 foot = 36 inch"
    failed = registry.run("units", "Convert 3 feet to kilograms", timeout_s=60)
    assert not failed.ok
    assert failed.error is not None
    assert "ToolRefusalError" in failed.error
    assert not failed.fully_parsed


def test_importing_the_tool_imports_neither_library() -> None:
    code = (
        "import sys, engine.adapters.tools.units as units\n"
        "assert units.UnitConverter().name == 'units'\n"
        "print(sorted({n.split('.')[0] for n in sys.modules} & {'pint', 'quantulum3'}))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        cwd=Path(__file__).parents[5],
    )
    assert result.stdout.strip() == "[]"
