"""A unit-conversion tool: quantities read by quantulum3, units and conversion by pint.

The question must be one conversion from its first word to its last: "convert Q to U", "Q in U",
"what is Q in U", "how many U are in Q" or "how many U is Q" (with an optional "please", "the
number of" and closing marks). Q is read by quantulum3 and must be covered whole by its
quantities, joined only by "and", "," or "plus" when they add up ("5 feet 10 inches", "3 km plus
500 m"); U is parsed by pint. Anything else in the question, a quantity pint cannot convert to U,
or two splits of the question that disagree is refused (`reading.require_whole`).

Libraries: quantulum3 finds the numbers and unit words (its scikit-learn classifier is turned
off: it needs a model pickled by another scikit-learn version, and the rule-based
disambiguation is deterministic and offline); pint parses unit names and converts, including
offset scales (°C, °F). A year is pint's Julian year (365.25 days); a ton is a US short ton.

Why the work is bounded (a tool thread that overruns cannot be killed; see the registry): input is
at most `MAX_INPUT_CHARS` characters, and numbers beyond `MAX_MAGNITUDE` are refused. Both
libraries load their tables in seconds, so they are loaded on the first conversion, once per
process, never on import.

>>> UnitConverter().run("Convert 7 kilometres to metres.").output
'7 kilometer = 7000 meter'
>>> UnitConverter().run("How many metres is 3 km plus 500 m?").value
'3500'
"""

import math
import re
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.adapters.tools.calculator import format_number
from engine.adapters.tools.reading import Reading, normalise, require_whole
from engine.domain.records import ToolAnswer
from engine.errors import ToolRefusal

if TYPE_CHECKING:
    import pint

__all__ = ["MAX_INPUT_CHARS", "MAX_MAGNITUDE", "UnitConverter", "convert"]

MAX_INPUT_CHARS = 200
MAX_MAGNITUDE = 1e15
SIGNIFICANT_DIGITS = 6

_END = r"\s*[?.!]*\s*$"
_LEAD = r"^(?:please\s+|can you\s+)?"
# Each form names the quantity (q) and the unit wanted (u); "in", "to", "into" and "as" join them.
_FORMS = tuple(
    re.compile(form, re.IGNORECASE)
    for form in (
        _LEAD
        + r"(?:convert|change|turn|express)\s+(?P<q>.+?)\s+(?:to|into|in|as)\s+(?P<u>.+?)"
        + _END,
        _LEAD + r"(?:what\s+is|what's|how\s+much\s+is|how\s+(?:far|long|heavy)\s+is)\s+(?P<q>.+?)"
        r"\s+(?:in|to|as)\s+(?P<u>.+?)" + _END,
        _LEAD + r"how\s+many\s+(?P<u>.+?)\s+(?:(?:are|is)\s+(?:there\s+)?)?(?:in|make|make\s+up)\s+"
        r"(?P<q>.+?)" + _END,
        _LEAD + r"how\s+many\s+(?P<u>.+?)\s+(?:is|are|equals?)\s+(?P<q>.+?)" + _END,
        _LEAD + r"(?P<q>.+?)\s+(?:in|to|into|=)\s+(?P<u>.+?)" + _END,
    )
)
_JOINER = re.compile(r"\s*(?:,|and|plus|\+)?\s*", re.IGNORECASE)
_UNIT_TEXT = re.compile(r"^(?:an?\s+|-?[\d.,/]+(?:\s+\d+/\d+)?\s*-?\s*)", re.IGNORECASE)
_DEGREES = re.compile(r"^degrees?\s+(?=celsius|centigrade|fahrenheit|kelvin)", re.IGNORECASE)

_lock = threading.RLock()  # pint and quantulum3 do not promise thread safety; conversions are quick
_loaded: dict[str, Any] = {}


def _libraries() -> tuple["pint.UnitRegistry[float]", Any]:
    """pint's registry and quantulum3's parser, loaded on first use and kept for the process."""
    with _lock:
        if not _loaded:
            import pint  # noqa: PLC0415 - slow imports, kept off the engine's import path
            import quantulum3.classifier  # noqa: PLC0415

            quantulum3.classifier.USE_CLF = False  # see the module docstring
            from quantulum3 import parser  # noqa: PLC0415

            _loaded["pint"] = pint.UnitRegistry(cache_folder=None)  # None: write no cache files
            _loaded["parser"] = parser
        return _loaded["pint"], _loaded["parser"]


def _unit(text: str) -> "pint.Unit":
    """The unit `text` names, by pint; `ToolRefusal` when it names none or several."""
    registry, _ = _libraries()
    name = _DEGREES.sub("", text.strip())
    candidates = [name, name.replace(" ", "_"), re.sub(r"s$", "", name.replace(" ", "_"))]
    for candidate in dict.fromkeys(candidates):
        if re.search(r"\s", candidate) and not re.search(r"\b(?:per|square|cubic)\b", candidate):
            continue  # a space would make pint multiply two words: "fluid ounces", "the metres"
        try:
            unit = registry.parse_units(candidate)
        except Exception:  # noqa: BLE001, S112 - pint raises several kinds for an unknown name
            continue
        return unit
    raise ToolRefusal(f"{text.strip()!r} is not a unit pint knows")


@dataclass(frozen=True)
class _Amount:
    value: float
    unit: "pint.Unit"
    written: str


def _amounts(text: str) -> list[_Amount]:
    """The quantities that cover `text` whole (quantulum3), joined only by "and", "," or "plus"."""
    _, parser = _libraries()
    found = parser.parse(text)
    amounts, position = [], 0
    for quantity in found:
        start, end = quantity.span
        if not _JOINER.fullmatch(text[position:start]):
            raise ToolRefusal(f"{text[position:start].strip()!r} in {text!r} is not a quantity")
        unit_text = _UNIT_TEXT.sub("", quantity.surface)
        if not unit_text or quantity.unit.entity.name == "dimensionless":
            raise ToolRefusal(f"{quantity.surface!r} has no unit")
        value = float(quantity.value)
        if not abs(value) <= MAX_MAGNITUDE:
            raise ToolRefusal(f"{quantity.surface} is too large a number")
        amounts.append(_Amount(value, _unit(unit_text), quantity.surface))
        position = end
    if not amounts or text[position:].strip(" ,"):
        raise ToolRefusal(f"{text!r} is not a quantity with a unit")
    return amounts


def _converted(amounts: list[_Amount], target: "pint.Unit") -> float:
    registry, _ = _libraries()
    if len(amounts) > 1 and any(_offset(amount.unit) for amount in amounts):
        raise ToolRefusal("temperatures on an offset scale do not add up")
    total = 0.0
    for amount in amounts:
        quantity = registry.Quantity(amount.value, amount.unit)
        if quantity.dimensionality != registry.Quantity(1, target).dimensionality:
            raise ToolRefusal(f"{amount.written} cannot be converted to {target}")
        total += float(quantity.to(target).magnitude)
    if not math.isfinite(total):
        raise ToolRefusal("the result is too large")
    return float(f"{total:.{SIGNIFICANT_DIGITS}g}")


def _name(unit: "pint.Unit") -> str:
    return str(unit).replace("_", " ")


def _offset(unit: "pint.Unit") -> bool:
    return str(unit) in {"degree_Celsius", "degree_Fahrenheit"}


def _readings(text: str) -> dict[str, tuple[str, Reading]]:
    """Every form that reads the question whole, by its answer: value -> (output, reading)."""
    found: dict[str, tuple[str, Reading]] = {}
    errors: list[str] = []
    for form in _FORMS:
        match = form.fullmatch(text)
        if match is None:
            continue
        try:
            amounts, target = _amounts(match["q"]), _unit(match["u"])
            value = _converted(amounts, target)
        except ToolRefusal as error:
            errors.append(str(error))
            continue
        shown = " + ".join(f"{format_number(a.value)} {_name(a.unit)}" for a in amounts)
        understood = f"{shown} = {format_number(value)} {_name(target)}"
        reading = Reading(text, understood, spans=((0, len(text)),))
        found.setdefault(format_number(value), (understood, reading))
    if not found:
        raise ToolRefusal(errors[0] if errors else "not a conversion ('convert Q to U', 'U in Q')")
    return found


def convert(question: str) -> ToolAnswer:
    """Read `question` as one conversion and compute it; `ToolRefusal` unless read whole.

    >>> convert("How many ounces are in 3 pounds?").output
    '3 pound = 48 ounce'
    >>> convert("How many letters are in Mississippi?")
    Traceback (most recent call last):
    ...
    engine.errors.ToolRefusal: 'letters' is not a unit pint knows
    """
    if len(question) > MAX_INPUT_CHARS:
        raise ToolRefusal(f"input is longer than {MAX_INPUT_CHARS} characters")
    # Case is kept: pint tells "mL" from "ML". "one" and "two" stay words ("one second").
    text = normalise(question, small_numbers=False, lower=False)
    with _lock:
        found = _readings(text)
    if len(found) > 1:
        raise ToolRefusal(f"the question reads {len(found)} ways: {', '.join(found)}")
    value, (understood, reading) = next(iter(found.items()))
    require_whole(reading)
    return ToolAnswer(
        output=understood,
        value=value,
        provenance=f"parsed the whole question and converted {understood}",
        fully_parsed=True,
    )


@dataclass(frozen=True)
class UnitConverter:
    """The converter as a tool: one quantity and a unit to convert it to, read whole; `a = b`."""

    name: str = "units"
    description: str = (
        "Converts a quantity between units (length, mass, volume, time, temperature, area, "
        "speed, energy, data...), e.g. 'Convert 7 km to miles', 'How many ounces in 3 pounds?', "
        "'100 °F in °C'. Give it the question; it refuses what it cannot read in full."
    )

    def run(self, argument: str) -> ToolAnswer:
        return convert(argument)
