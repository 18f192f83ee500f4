"""The units tool: a quantity and a target unit read from plain English, converted with pint."""

import itertools
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.adapters.tools import ToolRegistry
from engine.adapters.tools.calculator import format_number
from engine.adapters.tools.units import (
    MAX_INPUT_CHARS,
    MAX_MAGNITUDE,
    UNITS,
    Unit,
    UnitConverter,
    convert,
)
from engine.domain.ports import Tool
from engine.errors import ToolError


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Convert 7 kilometres to metres.", "7 kilometres = 7000 metres"),
        ("Convert 3 feet to inches", "3 feet = 36 inches"),
        ("How many grams are in 2.5 kilograms?", "2.5 kilograms = 2500 grams"),
        ("How many minutes is 3 hours?", "3 hours = 180 minutes"),
        ("5 miles in km", "5 miles = 8.04672 kilometres"),
        ("An object weighs 4 pounds. What is that in ounces?", "4 pounds = 64 ounces"),
        ("The walk took 2 hours; how long is that in seconds?", "2 hours = 7200 seconds"),
        ("12 inches = ? cm", "12 inches = 30.48 centimetres"),
        (
            "A runner covers 10 km in 50 minutes. How far is that in miles?",
            "10 kilometres = 6.21371 miles",
        ),
        (
            "A car travels 120 km in 2 hours. How many miles is that?",
            "120 kilometres = 74.5645 miles",
        ),
        ("What's 6 ft in metres?", "6 feet = 1.8288 metres"),
        ("How many cm is 6 ft?", "6 feet = 182.88 centimetres"),
        ("Express 1500 metres in kilometres", "1500 metres = 1.5 kilometres"),
        ("2 hours expressed in terms of minutes", "2 hours = 120 minutes"),
        ("5 kg is how many pounds?", "5 kilograms = 11.0231 pounds"),
        ("Change 3 days into hours", "3 days = 72 hours"),
        ("10 kg -> lb", "10 kilograms = 22.0462 pounds"),
        ("How many weeks are in a year?", "1 year = 52.1786 weeks"),
        ("1 gallon in litres", "1 gallon = 3.78541 litres"),
        ("1 imperial gallon in litres", "1 imperial gallon = 4.54609 litres"),
        ("How many millilitres are in 2 pints?", "2 pints = 946.353 millilitres"),
        ("1 acre in square metres", "1 acre = 4046.87 square metres"),
        ("3 sq ft to sq in", "3 square feet = 432 square inches"),
        ("60 miles an hour in km/h", "60 miles per hour = 96.5606 kilometres per hour"),
        ("100 km/h in m/s", "100 kilometres per hour = 27.7778 metres per second"),
        ("1 kWh in kJ", "1 kilowatt hour = 3600 kilojoules"),
        ("1 atm in psi", "1 atmosphere = 14.6959 psi"),
        ("1 GB in MB", "1 gigabyte = 1000 megabytes"),
        ("90 degrees in radians", "90 degrees = 1.5708 radians"),
        ("1 light-year in km", "1 light year = 9460730000000 kilometres"),
        ("5 stone in kg", "5 stone = 31.7515 kilograms"),
        ("1 ton in kg", "1 ton = 907.185 kilograms"),
        ("1 tonne in pounds", "1 tonne = 2204.62 pounds"),
    ],
)
def test_converts_plain_english_questions(question: str, answer: str) -> None:
    assert convert(question) == answer


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("What is 100 fahrenheit in celsius?", "100 degrees Fahrenheit = 37.7778 degrees Celsius"),
        ("100°F to °C", "100 degrees Fahrenheit = 37.7778 degrees Celsius"),
        ("What is 100 ° F in ° C?", "100 degrees Fahrenheit = 37.7778 degrees Celsius"),
        ("-40 °C in °F", "-40 degrees Celsius = -40 degrees Fahrenheit"),
        ("minus 40 degrees celsius to fahrenheit", "-40 degrees Celsius = -40 degrees Fahrenheit"),
        ("0 celsius to kelvin", "0 degrees Celsius = 273.15 kelvin"),
        ("32 °F in kelvin", "32 degrees Fahrenheit = 273.15 kelvin"),
        ("300 kelvin is how many degrees C?", "300 kelvin = 26.85 degrees Celsius"),
        (
            "How many degrees Fahrenheit is 37 degrees Celsius?",
            "37 degrees Celsius = 98.6 degrees Fahrenheit",
        ),
        (
            "Water boils at 100 degrees centigrade; in F?",
            "100 degrees Celsius = 212 degrees Fahrenheit",
        ),
        ("20 ℃ in ℉", "20 degrees Celsius = 68 degrees Fahrenheit"),
        ("30 c to f", "30 degrees Celsius = 86 degrees Fahrenheit"),
    ],
)
def test_temperatures_use_offset_scales(question: str, answer: str) -> None:
    assert convert(question) == answer


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Convert 7 kilometers to meters", "7 kilometers = 7000 meters"),
        ("Convert 7 kilometres to metres", "7 kilometres = 7000 metres"),
        ("3 liters in milliliters", "3 liters = 3000 milliliters"),
        ("3 litres in millilitres", "3 litres = 3000 millilitres"),
        ("2 metres in feet", "2 metres = 6.56168 feet"),
        ("2 meters in feet", "2 meters = 6.56168 feet"),
        ("5 feet in meters", "5 feet = 1.524 meters"),
        ("5 ft in m", "5 feet = 1.524 metres"),
        ("1 kilo in grammes", "1 kilogram = 1000 grams"),
    ],
)
def test_answers_in_the_spelling_the_question_used(question: str, answer: str) -> None:
    assert convert(question) == answer


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("5km in miles", "5 kilometres = 3.10686 miles"),
        ("2 cm to mm", "2 centimetres = 20 millimetres"),
        ("10 kg in lb", "10 kilograms = 22.0462 pounds"),
        ("250 g in oz", "250 grams = 8.81849 ounces"),
        ("500 ml to l", "500 millilitres = 0.5 litres"),
        ("1.5 l in ml", "1.5 litres = 1500 millilitres"),
        ("1 h in min", "1 hour = 60 minutes"),
        ("2 hrs in mins", "2 hours = 120 minutes"),
        ("90 s in min", "90 seconds = 1.5 minutes"),
        ("3 ft in yd", "3 feet = 1 yard"),
        ("1 mi in ft", "1 mile = 5280 feet"),
        ("12 in to cm", "12 inches = 30.48 centimetres"),
        ("2 lbs in kg", "2 pounds = 0.907185 kilograms"),
        ("8 fl oz in ml", "8 fluid ounces = 236.588 millilitres"),
        ("1 tbsp in tsp", "1 tablespoon = 3 teaspoons"),
        ("5 m to ft", "5 metres = 16.4042 feet"),
        ("5 KM TO M", "5 kilometres = 5000 metres"),
    ],
)
def test_reads_abbreviations_and_plurals(question: str, answer: str) -> None:
    assert convert(question) == answer


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Convert four kilograms to pounds", "4 kilograms = 8.81849 pounds"),
        ("twenty-five miles in km", "25 miles = 40.2336 kilometres"),
        ("twenty five miles in km", "25 miles = 40.2336 kilometres"),
        ("How many eggs? A dozen kilograms in pounds", "12 kilograms = 26.4555 pounds"),
        ("two dozen inches in feet", "24 inches = 2 feet"),
        ("half a mile in metres", "0.5 miles = 804.672 metres"),
        ("a quarter of an hour in minutes", "0.25 hours = 15 minutes"),
        ("two and a half hours in minutes", "2.5 hours = 150 minutes"),
        ("a hundred yards in metres", "100 yards = 91.44 metres"),
        ("three thousand feet in miles", "3000 feet = 0.568182 miles"),
        ("Convert 1.5 thousand metres to km", "1500 metres = 1.5 kilometres"),
        ("1,000 metres in km", "1000 metres = 1 kilometre"),
        ("1 1/2 cups in ml", "1.5 cups = 354.882 millilitres"),
        ("3/4 mile to yards", "0.75 miles = 1320 yards"),
        ("How many ounces in a pound?", "1 pound = 16 ounces"),
        ("How many seconds in an hour?", "1 hour = 3600 seconds"),
        ("How many m in a km", "1 kilometre = 1000 metres"),
    ],
)
def test_reads_number_words_and_fractions(question: str, answer: str) -> None:
    assert convert(question) == answer


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("What is 5 feet 10 inches in cm?", "5 feet 10 inches = 177.8 centimetres"),
        ("2 hours and 30 minutes in minutes", "2 hours 30 minutes = 150 minutes"),
        ("1 lb, 4 oz in grams", "1 pound 4 ounces = 566.99 grams"),
    ],
)
def test_adds_up_a_measurement_written_in_several_units(question: str, answer: str) -> None:
    assert convert(question) == answer


def test_quantities_in_rising_units_are_not_added_up() -> None:
    assert convert("10 inches 5 feet in cm") == "10 inches = 25.4 centimetres"


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        # "in" is a preposition unless it stands right after a number with no unit following.
        ("How many cm in 12 in?", "12 inches = 30.48 centimetres"),
        ("Convert 12 in to cm", "12 inches = 30.48 centimetres"),
        ("5 in in cm", "5 inches = 12.7 centimetres"),
        ("A 12-inch pizza is how many cm across?", "12 inches = 30.48 centimetres"),
        # One-letter units count only after a number or as the target.
        ("How many s in 2 min", "2 minutes = 120 seconds"),
        ("Is a 5 km race longer than 3 miles? Give 5 km in m", "5 kilometres = 5000 metres"),
        ("If I have a 2 g coin, what is that in mg?", "2 grams = 2000 milligrams"),
        # "an hour" is one hour, but "miles an hour" is a speed.
        ("It takes an hour; how many minutes is that?", "1 hour = 60 minutes"),
        ("50 km an hour in mph", "50 kilometres per hour = 31.0686 miles per hour"),
        # With several quantities, the one whose kind fits the target is converted.
        (
            "She burned 300 kcal in an hour; how many kJ is that?",
            "300 kilocalories = 1255.2 kilojoules",
        ),
    ],
)
def test_short_and_ambiguous_words(question: str, answer: str) -> None:
    assert convert(question) == answer


@pytest.mark.parametrize("word", ["a", "an", "is", "it", "am", "to", "at", "on", "of", "per"])
def test_common_english_words_are_not_units(word: str) -> None:
    assert word not in UNITS


def test_a_number_before_a_preposition_has_no_unit() -> None:
    with pytest.raises(ToolError, match="no quantity"):
        convert("what is 5 in km")


@pytest.mark.parametrize(
    ("question", "reason"),
    [
        ("hello", r"no quantity \(a number followed by a unit\) found$"),
        ("How many km?", "no quantity"),
        ("Convert 5 furlongs to metres", "'furlongs' is not a unit this tool knows"),
        ("convert 5 km", r"no unit to convert to found \(say e.g. 'in metres'\)$"),
        ("Convert 5 km to furlongs", "'furlongs' is not a unit this tool knows"),
        ("Convert 5 kilograms to metres", r"kilograms and metres measure different things \(mass"),
        ("How many seconds are in 3 miles?", r"miles and seconds measure different things"),
        ("Convert 100 degrees to fahrenheit", "say which scale the degrees are in"),
        ("1e20 km in m", "too large a number"),
        (f"{MAX_MAGNITUDE * 10:.0f} km in m", "too large a number"),
        ("1/0 km to m", "divides by zero"),
        ("x" * (MAX_INPUT_CHARS + 1), f"longer than {MAX_INPUT_CHARS} characters"),
    ],
)
def test_refuses_with_the_reason(question: str, reason: str) -> None:
    with pytest.raises(ToolError, match=reason):
        convert(question)


def test_the_largest_allowed_number_converts() -> None:
    answer = "1e+15 millimetres = 1000000000 kilometres"
    assert convert(f"{MAX_MAGNITUDE:.0f} mm in km") == answer


@given(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False).map(lambda x: round(x, 3)))
def test_metres_to_centimetres_is_a_factor_of_100(metres: float) -> None:
    answer = convert(f"{format_number(metres)} metres in cm")
    shown = float(answer.split(" = ")[1].split()[0])
    assert shown == pytest.approx(metres * 100, rel=1e-5, abs=1e-9)


def _kinds() -> dict[str, set[Unit]]:
    kinds: dict[str, set[Unit]] = defaultdict(set)
    for unit in UNITS.values():
        kinds[unit.kind].add(unit)
    return kinds


@pytest.mark.parametrize("kind", sorted(_kinds()))
def test_every_listed_unit_converts_to_every_other_of_its_kind(kind: str) -> None:
    for source, target in itertools.permutations(_kinds()[kind], 2):
        answer = convert(f"Convert 2 {source.plural} to {target.plural}")
        assert answer.startswith(f"2 {source.plural} = ")


def test_units_of_different_kinds_never_convert() -> None:
    meter, gram = UNITS["m"], UNITS["g"]
    assert meter.kind != gram.kind
    with pytest.raises(ToolError, match="measure different things"):
        convert("5 m in g")


def test_is_a_tool_the_registry_runs() -> None:
    tool: Tool = UnitConverter()
    registry = ToolRegistry([tool])
    ok = registry.run("units", "Convert 3 feet to inches", timeout_s=30)
    assert (ok.ok, ok.output) == (True, "3 feet = 36 inches")
    failed = registry.run("units", "Convert 3 feet to kilograms", timeout_s=30)
    assert not failed.ok
    assert failed.error is not None
    assert "measure different things" in failed.error
    assert tool.name == "units"
    assert "unit" in tool.description


def test_importing_the_tool_does_not_import_pint() -> None:
    code = (
        "import sys, engine.adapters.tools.units as units\n"
        "assert units.UnitConverter().name == 'units'\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] == 'pint'))\n"
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
