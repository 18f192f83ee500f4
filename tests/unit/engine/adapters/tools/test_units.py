"""The units tool: one conversion read whole (quantulum3 finds the quantities, pint converts)."""

import math
import re
import subprocess
import sys
import threading
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.adapters.tools import ToolRegistry
from engine.adapters.tools.answer_line import AnswerLine
from engine.adapters.tools.unit_libraries import how_many, libraries, lock
from engine.adapters.tools.units import (
    BOUNDED_CHARS,
    MAX_INPUT_CHARS,
    UnitConverter,
    convert,
    precheck,
)
from engine.domain.checkers import extract_final_answer
from engine.domain.ports import Tool
from engine.domain.records import ToolAnswer
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


# A power of a unit (issue 27): "7 kilometer ** 2 + 3 kilometer ** 2 = 10 kilometer ** 2" ended
# with the exponent, and the answer line read 2 for 10. Every way to write the power, in sums and
# conversions, must end the sentence with its value and name the unit without a digit.
_METRES = {
    "m": Fraction(1),
    "cm": Fraction(1, 100),
    "mm": Fraction(1, 1000),
    "km": Fraction(1000),
    "ft": Fraction(3048, 10000),
    "yd": Fraction(9144, 10000),
}
_NAMES = {
    "m": "metres",
    "cm": "centimetres",
    "mm": "millimetres",
    "km": "kilometres",
    "ft": "feet",
    "yd": "yards",
}


def _powered(symbol: str, power: int, style: str) -> str:
    if style == "words":
        return f"{'square' if power == 2 else 'cubic'} {_NAMES[symbol]}"
    return symbol + {"caret": f"^{power}", "superscript": "²" if power == 2 else "³"}[style]


@settings(max_examples=60, deadline=None)
@given(
    amounts=st.lists(st.integers(1, 999), min_size=1, max_size=2),
    source=st.sampled_from(sorted(_METRES)),
    target=st.sampled_from(sorted(_METRES)),
    power=st.sampled_from([2, 3]),
    style=st.sampled_from(["words", "caret", "superscript"]),
)
def test_a_power_of_a_unit_states_its_value_last(
    amounts: list[int], source: str, target: str, power: int, style: str
) -> None:
    quantity = " plus ".join(f"{amount} {_powered(source, power, style)}" for amount in amounts)
    question = f"What is {quantity} in {_powered(target, power, style)}?"
    answer = AnswerLine(UnitConverter()).run(question)
    assert isinstance(answer, ToolAnswer)
    exact = sum(amounts) * (_METRES[source] / _METRES[target]) ** power
    assert math.isclose(float(answer.value), exact, rel_tol=1e-9), (question, answer.output)
    sentence, line = answer.output.split("\n")
    assert line == f"Answer: {answer.value}"
    assert extract_final_answer(sentence) == answer.value  # what the engine's checker reads
    assert not re.search(r"[0-9]", sentence.split("=")[1].replace(answer.value, "", 1))


@pytest.mark.parametrize(
    "question",
    [
        "Convert 12 cubic inches to cubic centimetres plus 3",  # a bare number is no quantity
        "What is 4 m^2 in metres?",  # an area is not a length
        "How many cubic feet are in 3 square feet?",
        "Convert 2 m^2 to litres",
    ],
)
def test_a_power_that_does_not_convert_is_refused(question: str) -> None:
    with pytest.raises(ToolRefusalError):
        convert(question)


_ASKED = [
    "Convert 7 kilometres to metres.",
    "How many grams are in 2.5 kilograms?",
    "5 kg is how many pounds?",
    "A marathon is 42.195 km. How many miles is that?",
    "Convert 5 kilograms to metres",
    "How many letters are in Mississippi?",
    "Who invented the metre?",
    "Convert 5 metres",
    "What is 17 * 23?",
    "What is the first letter of the word 'kitten'?",
    "Is 7 a prime number?",
    "x" * (MAX_INPUT_CHARS + 1),
]


@pytest.mark.parametrize("question", _ASKED)
def test_the_precheck_refuses_only_as_the_conversion_would(question: str) -> None:
    early: str | None = None
    try:
        precheck(question)
    except ToolRefusalError as error:
        early = str(error)
    if early is not None:  # a question the precheck lets through is the conversion's to read
        with pytest.raises(ToolRefusalError) as late:
            convert(question)
        assert str(late.value) == early  # the same refusal, told without pint


def test_the_registry_refuses_a_question_no_form_reads_without_a_worker() -> None:
    registry = ToolRegistry([AnswerLine(UnitConverter())])
    refused = registry.run("units", "What is 17 * 23?", timeout_s=60)
    assert (refused.ok, refused.error) == (
        False,
        "ToolRefusalError: not a conversion ('convert Q to U', 'U in Q')",
    )
    assert registry._workers.started == 0
    long = "What is " + " plus ".join(["1 foot"] * 8) + " in inches?"
    assert len(long) > BOUNDED_CHARS
    answered = registry.run("units", long, timeout_s=60)
    assert (answered.ok, answered.value) == (True, "96")
    assert registry._workers.started == 1  # a long question goes to a worker and its deadline


def test_a_short_conversion_runs_on_the_callers_thread_once_the_libraries_are_loaded() -> None:
    tool = UnitConverter()
    registry = ToolRegistry([AnswerLine(tool)])
    answered = registry.run("units", "How many metres are in 5 kilometres?", timeout_s=60)
    assert (answered.ok, answered.value) == (True, "5000")
    assert registry._workers.started == 0  # no hand-off to a worker and back
    assert tool.precheck("Convert 3 feet to inches") is True


def test_a_conversion_behind_a_held_lock_goes_to_a_worker_and_meets_its_deadline() -> None:
    # A call that holds the libraries and does not end (one past its deadline, on a worker):
    # the caller's thread must not wait behind it, and the deadline still cuts the call off.
    registry = ToolRegistry([UnitConverter()])
    assert registry.run("units", "Convert 3 feet to inches", timeout_s=60).ok  # prepared, inline
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with lock:
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold, daemon=True)
    holder.start()
    held.wait(10)
    try:
        assert UnitConverter().precheck("Convert 3 feet to inches") is False
        late = registry.run("units", "Convert 3 feet to inches", timeout_s=0.05)
        assert (late.ok, late.error) == (False, "timed out after 0.05 s")
        assert registry._workers.started == 1
    finally:
        release.set()
        holder.join(10)


def test_loading_the_libraries_loads_what_the_first_parse_would_and_no_scikit_learn() -> None:
    # quantulum3 imported its language's parser (and inflect, 5-10 s) on the first parse, inside
    # the first conversion's deadline; `prepare()` must pay it before. scikit-learn, which its
    # classifier imports for nothing (it is off), is left out, and importable after.
    code = (
        "import sys\n"
        "from engine.adapters.tools.unit_libraries import libraries\n"
        "libraries()\n"
        "wanted = {'inflect', 'quantulum3._lang.en_US.parser', 'sklearn'}\n"
        "print(sorted(wanted & set(sys.modules)))\n"
        "import sklearn\n"
        "print(sklearn.__name__)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
        cwd=Path(__file__).parents[5],
    )
    assert result.stdout.split() == ["['inflect',", "'quantulum3._lang.en_US.parser']", "sklearn"]


def test_a_form_whose_quantity_opens_with_no_number_is_not_read_by_quantulum(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Three forms match this question; two take "How many metres are" or "in 5 kilometres" for
    # the quantity, which cannot open with a number: only the third's is worth reading.
    _, parser = libraries()
    read: list[str] = []
    parse = parser.parse

    def counted(text: str, *rest: object) -> object:
        read.append(text)
        return parse(text, *rest)

    monkeypatch.setattr(parser, "parse", counted)
    assert convert("How many metres are in 5 kilometres?").value == "5000"
    assert read == ["5 kilometres"]
    # A refusal still tells the first form's own reason, read when it is the one told.
    with pytest.raises(ToolRefusalError, match="'Mississippi' is not a quantity with a unit"):
        convert("How many letters are in Mississippi?")
