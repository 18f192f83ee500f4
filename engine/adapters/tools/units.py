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
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.adapters.tools.calculator import format_number
from engine.adapters.tools.reading import Reading, normalise, require_whole
from engine.adapters.tools.unit_libraries import SCALES, free, libraries, lock, parse_unit
from engine.domain.records import ToolAnswer
from engine.errors import ToolRefusalError

if TYPE_CHECKING:
    import pint

__all__ = [
    "BOUNDED_CHARS",
    "MAX_INPUT_CHARS",
    "MAX_MAGNITUDE",
    "UnitConverter",
    "convert",
    "precheck",
]

MAX_INPUT_CHARS = 200
# A conversion of a question this short may run on its caller's thread (`precheck`): over 3,830
# random questions of up to 200 characters that a form matches, each read with both libraries
# loaded on a machine at load 7, the slowest of up to 79 characters took 40 ms (1 ms to 14 ms
# up to 59), 250 times below the 10 s default deadline; the longest ones up to 71 ms.
BOUNDED_CHARS = 80
LOCK_WAIT_S = 1.0  # the libraries' lock is held for a conversion: milliseconds, 71 ms at worst
MAX_MAGNITUDE = 1e15
SIGNIFICANT_DIGITS = 12

_END = r"\s*[?.!]*\s*$"
_LEAD = r"^(?:please\s+|can you\s+|so\s+)?"
_WHAT = r"(?:what\s+is|what's|whats|how\s+much\s+is|how\s+(?:far|long|heavy|hot|cold)\s+is)"
# Each form names the quantity (q) and the unit wanted (u); "in", "to", "into" and "as" join them.
# A form with "that" refers back to a quantity stated in the sentence before (c, the context).
_FORMS = tuple(
    re.compile(form, re.IGNORECASE)
    for form in (
        _LEAD
        + r"(?:convert|change|turn|express)\s+(?P<q>.+?)\s+(?:to|into|in|as)\s+(?P<u>.+?)"
        + _END,
        _LEAD + _WHAT + r"\s+(?P<q>.+?),?\s+(?:in|to|as)\s+(?P<u>.+?)" + _END,
        _LEAD + r"how\s+many\s+(?P<u>.+?)\s+(?:(?:are|is)\s+(?:there\s+)?)?(?:in|make|make\s+up)\s+"
        r"(?P<q>.+?)" + _END,
        _LEAD + r"how\s+many\s+(?P<u>.+?)\s+(?:is|are|equals?)\s+(?P<q>.+?)" + _END,
        _LEAD + r"(?P<q>.+?)\s+(?:is|are|equals?)\s+how\s+many\s+(?P<u>.+?)" + _END,
        _LEAD + r"(?P<q>.+?)\s+(?:in|to|into|=)\s+(?P<u>.+?)" + _END,
        r"^(?P<c>(?:[^.?!]|\.(?=\d))+)[.!]\s+(?:how\s+many\s+(?P<u>.+?)\s+(?:is|are)\s+(?:that|this|it)"
        r"|(?:" + _WHAT + r"|what\s+(?:is|are)\s+(?:that|this|it)|what\s+does\s+(?:that|it)\s+"
        r"(?:come\s+to|weigh|make))\s+(?:that\s+|this\s+|it\s+)?(?:in|as)\s+(?P<u2>.+?))" + _END,
    )
)
# Between two quantities: "and", ",", "plus" add; "minus" subtracts.
_JOINER = re.compile(r"\s*(?P<op>,|and|plus|\+|minus)?\s*$", re.IGNORECASE)
_LESS_THAN = re.compile(r"^(?P<a>.+?)\s+less\s+than\s+(?P<b>.+)$", re.IGNORECASE)
_NUMBER_TEXT = re.compile(r"^(?:an?\b|-?\d[\d.,/]*(?:\s+\d+/\d+)?)\s*-?\s*", re.IGNORECASE)


@dataclass(frozen=True)
class _Amount:
    value: float  # signed: a quantity after "minus" is subtracted
    unit: "pint.Unit"
    written: str


def _amounts(text: str) -> list[_Amount]:
    """The quantities that cover `text` whole: numbers found by quantulum3, each followed by a
    unit pint reads, joined only by "and", ",", "plus" or "minus"; or "A less than B"."""
    less = _LESS_THAN.match(text)
    if less:
        subtracted = _amounts(less["a"])
        if len(subtracted) != 1:
            raise ToolRefusalError(f"{less['a']!r} is not one quantity")
        whole = _amounts(less["b"])
        return [*whole, _Amount(-subtracted[0].value, subtracted[0].unit, subtracted[0].written)]
    _, parser = libraries()
    starts = [quantity.span[0] for quantity in parser.parse(text)]
    if not starts or text[: starts[0]].strip():
        raise ToolRefusalError(f"{text!r} is not a quantity with a unit")
    amounts, sign = [], 1.0
    for start, end in zip(starts, [*starts[1:], len(text)], strict=True):
        piece = text[start:end]
        joiner = _JOINER.search(piece)
        body = piece[: joiner.start()] if joiner else piece
        number = _NUMBER_TEXT.match(body)
        if number is None or not body[number.end() :].strip():
            raise ToolRefusalError(f"{body.strip()!r} has no unit")
        amounts.append(
            _Amount(sign * _value(number.group()), parse_unit(body[number.end() :]), body)
        )
        sign = -1.0 if joiner and (joiner["op"] or "").lower() == "minus" else 1.0
    if sign < 0:
        raise ToolRefusalError(f"{text!r} ends with 'minus'")
    return amounts


def _value(written: str) -> float:
    written = written.strip().rstrip("-").strip()
    if written.lower() in ("a", "an"):
        return 1.0
    whole, _, fraction = written.replace(",", "").rpartition(" ")
    numerator, slash, denominator = fraction.partition("/")
    try:
        value = float(numerator) / float(denominator) if slash else float(numerator)
    except (ValueError, ZeroDivisionError):
        raise ToolRefusalError(f"{written!r} is not a number") from None
    value += float(whole) if whole else 0.0
    if not abs(value) <= MAX_MAGNITUDE:
        raise ToolRefusalError(f"{written} is too large a number")
    return value


def _converted(amounts: list[_Amount], target: "pint.Unit") -> float:
    registry, _ = libraries()
    if len(amounts) > 1 and any(_offset(amount.unit) for amount in amounts):
        raise ToolRefusalError("temperatures on an offset scale do not add up")
    total = 0.0
    for amount in amounts:
        quantity = registry.Quantity(amount.value, amount.unit)
        if quantity.dimensionality != registry.Quantity(1, target).dimensionality:
            raise ToolRefusalError(f"{amount.written} cannot be converted to {target}")
        total += float(quantity.to(target).magnitude)
    if not math.isfinite(total):
        raise ToolRefusalError("the result is too large")
    return float(f"{total:.{SIGNIFICANT_DIGITS}g}")  # drops binary noise (0.30000000000000004)


def _target(text: str, amounts: list[_Amount]) -> "pint.Unit":
    """The unit wanted; a bare "C", "F" or "K" after a temperature is its scale (pint would read
    coulomb or farad)."""
    registry, _ = libraries()
    scale = SCALES.get(text.strip().lower())
    temperature = registry.Quantity(1, "kelvin").dimensionality
    if scale and all(registry.Quantity(1, a.unit).dimensionality == temperature for a in amounts):
        return parse_unit(scale)
    return parse_unit(text)


def _shown(amounts: list[_Amount]) -> str:
    shown = f"{format_number(amounts[0].value)} {_name(amounts[0].unit)}"
    for amount in amounts[1:]:
        sign = "-" if amount.value < 0 else "+"
        shown += f" {sign} {format_number(abs(amount.value))} {_name(amount.unit)}"
    return shown


# A unit to the power 2 or 3 is named in words, as people write it: "square kilometer".
_POWER_WORDS = {"²": "square", "³": "cubic"}
_ONE_POWER = re.compile(r"(?P<name>[^\W\d]+(?: [^\W\d]+)*)(?P<power>[²³])")


def _name(unit: "pint.Unit") -> str:
    """The unit's name with no digit in it: "square kilometer", "meter / second²".

    Why no digit: the sentence "7 kilometer ** 2 + 3 kilometer ** 2 = 10 kilometer ** 2" ends
    with the exponent, and whoever reads the answer off its last number (the answer line, the
    engine's checker, a small model copying it) reads 2 for 10. pint's pretty format writes
    powers as superscripts, which are not decimal digits; a name that still holds one is refused.
    """
    pretty = format(unit, "P").replace("_", " ")
    single = _ONE_POWER.fullmatch(pretty)
    if single:
        return f"{_POWER_WORDS[single['power']]} {single['name']}"
    if re.search(r"\d", pretty):
        raise ToolRefusalError(f"the unit {pretty!r} is written with a number in it")
    return pretty


def _offset(unit: "pint.Unit") -> bool:
    return str(unit) in {"degree_Celsius", "degree_Fahrenheit"}


def _stated(text: str, match: re.Match[str]) -> tuple[list[_Amount], tuple[tuple[int, int], ...]]:
    """The quantities a form names, and the spans of text its reading consumed.

    A plain form consumes the whole text. A form that says "that" takes its quantity from the
    sentence before, which may say more ("A marathon is 42.195 km"): only the quantity and the
    question are consumed there, so `require_whole` refuses a context with another number or an
    operative word in it.
    """
    if "c" not in match.re.groupindex or match["c"] is None:
        return _amounts(match["q"]), ((0, len(text)),)
    context = match["c"]
    _, parser = libraries()
    found = parser.parse(context)
    if len(found) != 1:
        raise ToolRefusalError(f"{context!r} states {len(found)} quantities, not one")
    start = found[0].span[0]
    amounts, end = _quantity_at(context, start)
    return amounts, ((start, end), (len(context), len(text)))


def _quantity_at(context: str, start: int) -> tuple[list[_Amount], int]:
    """The quantity that starts at `start`: the longest run of words after it that pint reads."""
    words = list(re.finditer(r"\S+", context[start:]))
    for count in range(min(len(words), 5), 1, -1):
        end = start + words[count - 1].end()
        try:
            return _amounts(context[start:end].rstrip(",")), end
        except ToolRefusalError:
            continue
    raise ToolRefusalError(f"{context!r} states no quantity with a unit")


def _readings(text: str) -> dict[str, tuple[str, Reading]]:
    """Every form that reads the question whole, by its answer: value -> (output, reading)."""
    found: dict[str, tuple[str, Reading]] = {}
    refusals: list[str | re.Match[str]] = []  # a match: refused, its reason not yet asked for
    for form in _FORMS:
        match = form.fullmatch(text)
        if match is None:
            continue
        if _cannot_state(match):
            refusals.append(match)
            continue
        try:
            value, understood, reading = _reading(text, match)
        except ToolRefusalError as error:
            refusals.append(str(error))
            continue
        found.setdefault(value, (understood, reading))
    if not found:
        raise ToolRefusalError(_first_refusal(text, refusals))
    return found


def _reading(text: str, match: re.Match[str]) -> tuple[str, str, Reading]:
    """The answer one form's match gives, what it understood and its reading; or a refusal."""
    amounts, spans = _stated(text, match)
    target = _target(match["u"] or match["u2"], amounts)
    value = _converted(amounts, target)
    understood = f"{_shown(amounts)} = {format_number(value)} {_name(target)}"
    reading = require_whole(Reading(text.lower(), understood, spans=spans))
    return format_number(value), understood, reading


# What a quantity's text starts with, after spaces, if `_amounts` is to read it: its first piece
# must open with `_NUMBER_TEXT` ("a", "an", a minus or a digit), "A less than B" included.
_QUANTITY_START = re.compile(r"[-\da]", re.IGNORECASE)


def _cannot_state(match: re.Match[str]) -> bool:
    """Whether a form's quantity cannot be one, told from its first character, without quantulum3.

    Why: "How many metres are in 5 kilometres?" is matched by three forms, and two of them take
    "How many metres are" or "in 5 kilometres" for the quantity; quantulum3 read each (a quarter
    of a millisecond) only for `_amounts` to refuse it. A form whose quantity is read from the
    sentence before ("... How many miles is that?") is left to quantulum3.
    """
    if "q" not in match.re.groupindex:
        return False
    return _QUANTITY_START.match(match["q"].lstrip()[:1]) is None


def _first_refusal(text: str, refusals: list[str | re.Match[str]]) -> str:
    """The first form's refusal, as `_reading` gives it: a form skipped by `_cannot_state` is
    read now (it refuses), so the reason told never depends on the shortcut."""
    if not refusals:
        return _NOT_A_CONVERSION
    first = refusals[0]
    if isinstance(first, str):
        return first
    try:
        _reading(text, first)
    except ToolRefusalError as error:
        return str(error)
    raise AssertionError(f"a form skipped as no quantity read {first['q']!r}")  # pragma: no cover


_NOT_A_CONVERSION = "not a conversion ('convert Q to U', 'U in Q')"


def _text(question: str) -> str:
    """The question as the forms read it; `ToolRefusalError` when it is too long to read."""
    if len(question) > MAX_INPUT_CHARS:
        raise ToolRefusalError(f"input is longer than {MAX_INPUT_CHARS} characters")
    # Case is kept: pint tells "mL" from "ML". text2num reads "one second" as "1 2nd"; in a
    # conversion, "second" is the unit.
    return re.sub(r"\b2nd\b", "second", normalise(question, lower=False))


def precheck(question: str) -> bool:
    """Raise the refusal `convert` gives a question that no form reads, without pint; else
    whether its conversion is bounded enough for the caller's thread.

    Why: the tool policy tries this tool on questions of every kind (and as a fallback after
    another tool refused), and most of them are no conversion at all; `convert` refuses those
    before it touches a library, with this same error, so the registry can ask here on the
    caller's thread instead of handing the question to a worker (`ToolRegistry.run`). It never
    answers: a question that some form reads goes on to `convert`, on the caller's thread when
    it is at most `BOUNDED_CHARS` long and the libraries are loaded and free (True), else on a
    worker, under its deadline.

    >>> precheck("What is 3 + 5?")
    Traceback (most recent call last):
    ...
    engine.errors.ToolRefusalError: not a conversion ('convert Q to U', 'U in Q')
    """
    text = _text(question)
    if not any(form.fullmatch(text) for form in _FORMS):
        raise ToolRefusalError(_NOT_A_CONVERSION)
    return len(text) <= BOUNDED_CHARS and free()


def convert(question: str) -> ToolAnswer:
    """Read `question` as one conversion and compute it; `ToolRefusalError` unless read whole.

    >>> convert("How many ounces are in 3 pounds?").output
    '3 pound = 48 ounce'
    >>> convert("How many letters are in Mississippi?")
    Traceback (most recent call last):
    ...
    engine.errors.ToolRefusalError: 'Mississippi' is not a quantity with a unit
    """
    text = _text(question)
    # Bounded: a run on the caller's thread (`precheck`) must not wait without end behind a
    # call that took the libraries after the precheck saw them free and never ends.
    if not lock.acquire(timeout=LOCK_WAIT_S):
        raise ToolRefusalError(f"the unit libraries stayed busy for {LOCK_WAIT_S:g} s")
    try:
        found = _readings(text)
    finally:
        lock.release()
    if len(found) > 1:
        raise ToolRefusalError(f"the question reads {len(found)} ways: {', '.join(found)}")
    value, (understood, _) = next(iter(found.items()))
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

    def prepare(self) -> None:
        """Load pint and quantulum3 (seconds, once per process) before the first deadline runs."""
        libraries()

    def precheck(self, argument: str) -> bool:
        """`precheck`: the refusal of a question that is no conversion, told without pint, and
        whether the conversion may run on the caller's thread."""
        return precheck(argument)

    def run(self, argument: str) -> ToolAnswer:
        return convert(argument)
