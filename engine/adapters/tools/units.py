"""A unit-conversion tool: finds a quantity and a target unit in plain English, converts with pint.

The argument is usually the user's whole question, so the tool reads it the way a person does: a
quantity is a number (digits, or simple number words like "four", "a dozen", "half a") followed by
a unit; the target is a unit after "to", "into", "in", "as", "=" or "how many". Several quantities
in a row that name ever smaller units of one kind ("5 feet 10 inches") are added up. When the text
holds more than one quantity, the first whose kind fits the target is converted.

Why an allow-list (`UNITS`) and not pint's own parser: pint would read many English words as units
("in", "a", "s", "m", "h", "g" and "l" are all units to it). Here every unit word is listed, and the
short ones only count where a unit must stand, right after a number or as the target; "in" after a
number is a preposition when another unit follows ("5 in km" has no source unit). US customary
volumes are meant unless "imperial" is said; a ton is a US short ton, a tonne a metric one; a year
is 365.25 days and a month a twelfth of that; "degrees" alone is an angle. Not read: the 5'10"
notation, currencies, and units missing from the list (pint's "decade" is a logarithmic ratio, so a
decade of years is left out rather than converted wrongly).

Why the work is bounded (a tool thread that overruns cannot be killed; see the registry): input is
at most `MAX_INPUT_CHARS` characters, and numbers beyond `MAX_MAGNITUDE` are refused. pint loads
its unit definitions in about half a second, so its registry is built on the first conversion,
once per process, never on import.

>>> UnitConverter().run("Convert 7 kilometres to metres.")
'7 kilometres = 7000 metres'
>>> UnitConverter().run("What is 100 °F in °C?")
'100 degrees Fahrenheit = 37.7778 degrees Celsius'
"""

import math
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.adapters.tools.calculator import format_number
from engine.adapters.tools.number_words import digits_for_words
from engine.errors import ToolError

if TYPE_CHECKING:
    import pint

__all__ = ["MAX_INPUT_CHARS", "MAX_MAGNITUDE", "UNITS", "UnitConverter", "convert"]

MAX_INPUT_CHARS = 200
MAX_MAGNITUDE = 1e15  # where format_number stops writing whole numbers out; far past any question
SIGNIFICANT_DIGITS = 6


@dataclass(frozen=True)
class Unit:
    """One allowed unit: pint's name for it, what it measures, and how to write it (British)."""

    pint_name: str
    kind: str
    singular: str
    plural: str

    def show(self, value: float, american: bool) -> str:
        """Write `value` with this unit, e.g. '7 kilometres' (or 'kilometers' when `american`)."""
        name = self.singular if value == 1 else self.plural
        if american:
            name = name.replace("metre", "meter").replace("litre", "liter")
        return f"{format_number(value)} {name}"


# Temperature scales and km/h are written many ways: "°C", "deg C", "degrees C", bare "C".
_CELSIUS = "celsius|°c|deg c|degrees c|degree c|centigrade|degrees centigrade|c"
_FAHRENHEIT = "fahrenheit|°f|deg f|degrees f|degree f|f"
_KPH = "km/h|km/hr|kph|kmh|km per hour|km an hour|kilometres an hour"

# pint name, kind, singular, plural, then other spellings and abbreviations (lower case, "|"
# between). American spellings of metre and litre are added from the British ones.
_TABLE = (
    ("nanometer", "length", "nanometre", "nanometres", ""),
    ("micrometer", "length", "micrometre", "micrometres", "µm|micron|microns"),
    ("millimeter", "length", "millimetre", "millimetres", "mm"),
    ("centimeter", "length", "centimetre", "centimetres", "cm|cms"),
    ("meter", "length", "metre", "metres", "m|mtr|mtrs"),
    ("kilometer", "length", "kilometre", "kilometres", "km|kms|klick|klicks"),
    ("inch", "length", "inch", "inches", "in|ins"),
    ("foot", "length", "foot", "feet", "ft"),
    ("yard", "length", "yard", "yards", "yd|yds"),
    ("mile", "length", "mile", "miles", "mi"),
    ("nautical_mile", "length", "nautical mile", "nautical miles", "nmi"),
    ("light_year", "length", "light year", "light years", "ly"),
    ("microgram", "mass", "microgram", "micrograms", "µg|mcg"),
    ("milligram", "mass", "milligram", "milligrams", "mg|mgs"),
    ("gram", "mass", "gram", "grams", "g|gm|gms|gramme|grammes"),
    ("kilogram", "mass", "kilogram", "kilograms", "kg|kgs|kilo|kilos|kilogramme|kilogrammes"),
    ("metric_ton", "mass", "tonne", "tonnes", "t|metric ton|metric tons"),
    ("short_ton", "mass", "ton", "tons", "short ton|short tons|us ton|us tons"),
    ("long_ton", "mass", "long ton", "long tons", "imperial ton|imperial tons"),
    ("ounce", "mass", "ounce", "ounces", "oz"),
    ("pound", "mass", "pound", "pounds", "lb|lbs"),
    ("stone", "mass", "stone", "stone", "stones"),
    ("millisecond", "time", "millisecond", "milliseconds", "ms|msec|msecs"),
    ("second", "time", "second", "seconds", "s|sec|secs"),
    ("minute", "time", "minute", "minutes", "min|mins"),
    ("hour", "time", "hour", "hours", "h|hr|hrs"),
    ("day", "time", "day", "days", ""),
    ("week", "time", "week", "weeks", "wk|wks"),
    ("fortnight", "time", "fortnight", "fortnights", ""),
    ("month", "time", "month", "months", ""),
    ("year", "time", "year", "years", "yr|yrs"),
    ("century", "time", "century", "centuries", ""),
    ("degree_Celsius", "temperature", "degree Celsius", "degrees Celsius", _CELSIUS),
    ("degree_Fahrenheit", "temperature", "degree Fahrenheit", "degrees Fahrenheit", _FAHRENHEIT),
    ("kelvin", "temperature", "kelvin", "kelvin", "kelvins|degrees kelvin|°k"),
    ("milliliter", "volume", "millilitre", "millilitres", "ml|mls"),
    ("centiliter", "volume", "centilitre", "centilitres", "cl"),
    ("deciliter", "volume", "decilitre", "decilitres", "dl"),
    ("liter", "volume", "litre", "litres", "l|ltr|ltrs"),
    ("cubic_centimeter", "volume", "cubic centimetre", "cubic centimetres", "cc|cm3|cm³"),
    ("meter ** 3", "volume", "cubic metre", "cubic metres", "m3|m³"),
    ("cubic_inch", "volume", "cubic inch", "cubic inches", "in3|in³|cu in"),
    ("cubic_foot", "volume", "cubic foot", "cubic feet", "ft3|ft³|cu ft"),
    ("teaspoon", "volume", "teaspoon", "teaspoons", "tsp|tsps"),
    ("tablespoon", "volume", "tablespoon", "tablespoons", "tbsp|tbsps"),
    ("fluid_ounce", "volume", "fluid ounce", "fluid ounces", "fl oz|floz"),
    ("imperial_fluid_ounce", "volume", "imperial fluid ounce", "imperial fluid ounces", ""),
    ("cup", "volume", "cup", "cups", ""),
    ("pint", "volume", "pint", "pints", "pt|pts|us pint|us pints"),
    ("imperial_pint", "volume", "imperial pint", "imperial pints", "uk pint|uk pints"),
    ("quart", "volume", "quart", "quarts", "qt|qts"),
    ("gallon", "volume", "gallon", "gallons", "gal|gals|us gallon|us gallons"),
    ("imperial_gallon", "volume", "imperial gallon", "imperial gallons", "uk gallon|uk gallons"),
    ("centimeter ** 2", "area", "square centimetre", "square centimetres", "cm2|cm²|sq cm"),
    ("meter ** 2", "area", "square metre", "square metres", "m2|m²|sq m"),
    ("kilometer ** 2", "area", "square kilometre", "square kilometres", "km2|km²|sq km"),
    ("inch ** 2", "area", "square inch", "square inches", "in2|in²|sq in"),
    ("foot ** 2", "area", "square foot", "square feet", "ft2|ft²|sq ft"),
    ("yard ** 2", "area", "square yard", "square yards", "yd2|yd²|sq yd"),
    ("mile ** 2", "area", "square mile", "square miles", "mi2|mi²|sq mi"),
    ("acre", "area", "acre", "acres", ""),
    ("hectare", "area", "hectare", "hectares", "ha"),
    ("meter / second", "speed", "metre per second", "metres per second", "m/s"),
    ("kilometer / hour", "speed", "kilometre per hour", "kilometres per hour", _KPH),
    ("mile / hour", "speed", "mile per hour", "miles per hour", "mph|mi/h|miles an hour"),
    ("foot / second", "speed", "foot per second", "feet per second", "ft/s"),
    ("knot", "speed", "knot", "knots", ""),
    ("joule", "energy", "joule", "joules", "j"),
    ("kilojoule", "energy", "kilojoule", "kilojoules", "kj"),
    ("calorie", "energy", "calorie", "calories", "cal"),
    ("kilocalorie", "energy", "kilocalorie", "kilocalories", "kcal|kcals"),
    ("watt_hour", "energy", "watt hour", "watt hours", "wh"),
    ("kilowatt_hour", "energy", "kilowatt hour", "kilowatt hours", "kwh"),
    ("Btu", "energy", "BTU", "BTU", "btus|british thermal unit|british thermal units"),
    ("watt", "power", "watt", "watts", "w"),
    ("kilowatt", "power", "kilowatt", "kilowatts", "kw"),
    ("horsepower", "power", "horsepower", "horsepower", "hp"),
    ("pascal", "pressure", "pascal", "pascals", "pa"),
    ("kilopascal", "pressure", "kilopascal", "kilopascals", "kpa"),
    ("bar", "pressure", "bar", "bar", "bars"),
    ("psi", "pressure", "psi", "psi", ""),
    ("atmosphere", "pressure", "atmosphere", "atmospheres", "atm"),
    ("millimeter_Hg", "pressure", "millimetre of mercury", "millimetres of mercury", "mmhg"),
    ("byte", "data", "byte", "bytes", ""),
    ("bit", "data", "bit", "bits", ""),
    ("kilobyte", "data", "kilobyte", "kilobytes", "kb"),
    ("megabyte", "data", "megabyte", "megabytes", "mb"),
    ("gigabyte", "data", "gigabyte", "gigabytes", "gb"),
    ("terabyte", "data", "terabyte", "terabytes", "tb"),
    ("kibibyte", "data", "kibibyte", "kibibytes", "kib"),
    ("mebibyte", "data", "mebibyte", "mebibytes", "mib"),
    ("gibibyte", "data", "gibibyte", "gibibytes", "gib"),
    ("hertz", "frequency", "hertz", "hertz", "hz"),
    ("kilohertz", "frequency", "kilohertz", "kilohertz", "khz"),
    ("megahertz", "frequency", "megahertz", "megahertz", "mhz"),
    ("gigahertz", "frequency", "gigahertz", "gigahertz", "ghz"),
    ("degree", "angle", "degree", "degrees", "deg|°"),
    ("radian", "angle", "radian", "radians", "rad|rads"),
)


def _build_units() -> dict[str, Unit]:
    units: dict[str, Unit] = {}
    for pint_name, kind, singular, plural, other in _TABLE:
        unit = Unit(pint_name, kind, singular, plural)
        spellings = [singular.lower(), plural.lower(), *other.split("|")]
        american = [s.replace("metre", "meter").replace("litre", "liter") for s in spellings]
        for spelling in filter(None, {*spellings, *american}):
            if units.setdefault(spelling, unit) is not unit:
                raise AssertionError(f"{spelling!r} names two units")  # a table error
    return units


UNITS: dict[str, Unit] = _build_units()
"""Every unit word the tool reads (lower case), mapped to its unit."""


def _alternatives(spellings: Iterable[str]) -> str:
    # Longest first, so "fl oz" wins over "oz"; a unit never runs on into a letter, digit or "/".
    ordered = sorted(spellings, key=len, reverse=True)
    return rf"(?:{'|'.join(re.escape(spelling) for spelling in ordered)})(?![a-z0-9²³/])"


# Short words that are also plain English or letters: "a"/"an" before them is not "1".
_SHORT = frozenset(spelling for spelling in UNITS if len(spelling) == 1) | {"in", "ha", "pa"}
_LONG = frozenset(UNITS.keys() - _SHORT)
_UNIT = _alternatives(UNITS)
_LONG_UNIT = _alternatives(_LONG)
_NUMBER = r"(?<![\w.])-?(?:\d+ \d+/\d+|\d+/\d+|\d+(?:\.\d+)?(?:e[-+]?\d+)?|\.\d+)"
_QUANTITY = re.compile(rf"({_NUMBER}) ?(?:- ?)?({_UNIT})")
_TARGET = re.compile(
    rf"(?:\bhow (?:many|much) |(?:\b(?:to|into|in|as|equals?)\b|=|->|→) ?(?:\? ?)?"
    rf"(?:how many |the |terms of |number of )?)({_UNIT})"
)
_WORD_AFTER_NUMBER = re.compile(rf"{_NUMBER} ?([a-z]+)")
_WORD_AS_TARGET = re.compile(r"(?:\b(?:to|into|in|as)\b|=|\bhow many) ?\?? ?([a-z]+)")
# Quantities in a row are one measurement: "5 feet 10 inches", "2 hours and 30 minutes".
_JOINER = re.compile(r" ?(?:,|and)? ?")


def _spell_numbers(text: str) -> str:
    """Number words as digits ('twenty five' -> '25'), then 'half a', 'a quarter of an' and
    'an hour' (1 hour) as quantities."""
    text = digits_for_words(text)
    text = re.sub(r"\bhalf (?:of )?an? ", "0.5 ", text)
    text = re.sub(r"\ba quarter (?:of )?an? ", "0.25 ", text)
    return re.sub(rf"\ban? (?={_LONG_UNIT})", _one_unless_after_unit, text)


def _one_unless_after_unit(match: re.Match[str]) -> str:
    # "in an hour" is 1 hour, but "60 miles an hour" is a speed ("miles an hour" is listed).
    before = match.string[: match.start()].split()
    return match[0] if before and before[-1] in _LONG else "1 "


def _normalise(text: str) -> str:
    text = text.lower().replace("º", "°").replace("μ", "µ").replace("℃", "°c").replace("℉", "°f")
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)  # 1,000 -> 1000
    text = re.sub(r"(?<=[a-z])-(?=[a-z])", " ", text)  # light-year, twenty-five
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\bminus (?=\.?\d)", "-", text)
    text = re.sub(r"° (?=[a-z])", "°", text)
    return _spell_numbers(text)


def _parse_number(written: str) -> float:
    whole, _, fraction = written.rpartition(" ")  # "1 1/2"
    numerator, slash, denominator = fraction.partition("/")
    try:
        value = float(numerator) / float(denominator) if slash else float(numerator)
    except ZeroDivisionError:
        raise ToolError(f"{written!r} divides by zero") from None
    if whole:
        value = float(whole) + math.copysign(value, float(whole))
    if not abs(value) <= MAX_MAGNITUDE:  # also refuses inf and nan
        raise ToolError(f"{written} is too large a number (the limit is {MAX_MAGNITUDE:.0e})")
    return value


@dataclass(frozen=True)
class _Part:
    """One quantity found in the text, and where."""

    value: float
    unit: Unit
    start: int
    end: int


def _quantities(text: str) -> list[_Part]:
    parts = []
    for match in _QUANTITY.finditer(text):
        # "5 in km": that "in" is a preposition, and 5 has no unit.
        if match[2] == "in" and re.match(rf" (?!in\b){_UNIT}", text[match.end() :]):
            continue
        parts.append(_Part(_parse_number(match[1]), UNITS[match[2]], *match.span()))
    return parts


def _targets(text: str, parts: list[_Part]) -> list[tuple[Unit, str]]:
    """Target units, most likely first: 'how many X', then 'to X' or 'in X' from the end."""
    found = []
    match = _TARGET.search(text)
    while match:  # overlapping matches: in "5 in in cm" both "in in" and "in cm" are candidates
        if not any(part.start <= match.start(1) < part.end for part in parts):
            found.append(match)
        match = _TARGET.search(text, match.start(1))
    asked = [match for match in found if match[0].startswith("how")]
    ordered = asked + [match for match in reversed(found) if match not in asked]
    return [(UNITS[match[1]], match[1]) for match in ordered]


def _group(text: str, parts: list[_Part]) -> list[list[_Part]]:
    """Join quantities written in a row, each unit smaller than the last, into one measurement."""
    groups: list[list[_Part]] = []
    for part in parts:
        last = groups[-1][-1] if groups else None
        if (
            last is not None
            and last.unit.kind == part.unit.kind != "temperature"
            and _JOINER.fullmatch(text[last.end : part.start])
            and _size(last.unit) > _size(part.unit)
        ):
            groups[-1].append(part)
        else:
            groups.append([part])
    return groups


_registry: "pint.UnitRegistry[float] | None" = None
# pint does not promise that a registry is safe to share between threads; conversions are quick,
# so they simply take turns.
_registry_lock = threading.RLock()


def _units() -> "pint.UnitRegistry[float]":
    """pint's registry, built on first use (about half a second) and kept for the process."""
    global _registry  # noqa: PLW0603 - one process-wide cache, guarded by the lock
    with _registry_lock:
        if _registry is None:
            import pint  # noqa: PLC0415 - a slow import, kept off the engine's import path

            _registry = pint.UnitRegistry(cache_folder=None)  # None: write no cache files
        return _registry


def _size(unit: Unit) -> float:
    with _registry_lock:
        return float(_units().Quantity(1.0, unit.pint_name).to_base_units().magnitude)


def _convert(group: list[_Part], target: Unit) -> float:
    total = 0.0
    with _registry_lock:
        registry = _units()
        for part in group:
            # A Quantity, not a product with the unit: offset units (°C, °F) only convert so.
            quantity = registry.Quantity(part.value, part.unit.pint_name)
            total += float(quantity.to(target.pint_name).magnitude)
    if not math.isfinite(total):
        raise ToolError("the result is too large")
    return float(f"{total:.{SIGNIFICANT_DIGITS}g}")


def _mismatch(source: Unit, target: Unit) -> ToolError:
    if source.pint_name == "degree" and target.kind == "temperature":
        return ToolError("say which scale the degrees are in: Celsius, Fahrenheit or kelvin")
    return ToolError(
        f"{source.plural} and {target.plural} measure different things "
        f"({source.kind} and {target.kind})"
    )


def _unknown(pattern: re.Pattern[str], text: str) -> str:
    words = [match[1] for match in pattern.finditer(text) if match[1] not in UNITS]
    return f": {words[-1]!r} is not a unit this tool knows" if words else ""


def convert(text: str) -> str:
    """Find the quantity and the target unit in `text`; return 'quantity = result'.

    >>> convert("How many grams are in 2.5 kilograms?")
    '2.5 kilograms = 2500 grams'
    >>> convert("Convert 5 kilograms to metres")
    Traceback (most recent call last):
    ...
    engine.errors.ToolError: kilograms and metres measure different things (mass and length)
    """
    if len(text) > MAX_INPUT_CHARS:
        raise ToolError(f"input is longer than {MAX_INPUT_CHARS} characters")
    normal = _normalise(text)
    parts = _quantities(normal)
    if not parts:
        unknown = _unknown(_WORD_AFTER_NUMBER, normal)
        raise ToolError(f"no quantity (a number followed by a unit) found{unknown}")
    targets = _targets(normal, parts)
    if not targets:
        unknown = _unknown(_WORD_AS_TARGET, normal)
        raise ToolError(f"no unit to convert to found (say e.g. 'in metres'){unknown}")
    groups = _group(normal, parts)
    for target, written in targets:
        for group in groups:
            if group[0].unit.kind == target.kind:
                spelled = [normal[part.start : part.end] for part in group] + [written]
                american = any(re.search(r"(?:met|lit)ers?\b", word) for word in spelled)
                source = " ".join(part.unit.show(part.value, american) for part in group)
                return f"{source} = {target.show(_convert(group, target), american)}"
    raise _mismatch(groups[0][0].unit, targets[0][0])


@dataclass(frozen=True)
class UnitConverter:
    """The converter as a tool: reads a quantity and a unit to convert to; shows `a = b`."""

    name: str = "units"
    description: str = (
        "Converts a quantity between units of length, mass, volume, time, temperature, area, "
        "speed, energy, power, pressure and data, e.g. 'Convert 7 km to miles', 'How many ounces "
        "in 3 pounds?', '100 °F in °C'. Give it the quantity and the unit wanted; it answers "
        "'quantity = result'."
    )

    def run(self, argument: str) -> str:
        return convert(argument)
