"""The rule a sequence of exact numbers follows, its next terms, and numbers as the tools show them.

The rules, simplest first: a constant difference, a constant ratio, a constant second difference,
each term the sum of the two before (the last two need four terms: with three, they fit always or
never by accident). Split from the number-list tool, which reads the question around them.

>>> continue_sequence([Fraction(2), Fraction(4), Fraction(6)])
('the sequence adds 2 each time', [Fraction(8, 1)])
"""

from collections.abc import Callable, Sequence
from fractions import Fraction
from itertools import pairwise

from engine.adapters.tools.calculator import MAX_INT_BITS, format_number
from engine.errors import ToolError

__all__ = ["MAX_DECIMALS", "continue_sequence", "show"]

MAX_DECIMALS = 12  # a longer exact decimal is shown as a fraction with its approximate value


def show(value: Fraction) -> str:
    """A number as a small model copies it best: exact, whole numbers without a decimal point.

    >>> show(Fraction(10)), show(Fraction(-1, 8)), show(Fraction(7, 3))
    ('10', '-0.125', '7/3 (about 2.33333333333)')
    """
    if value.denominator == 1:
        return str(value.numerator)
    for places in range(1, MAX_DECIMALS + 1):
        scaled = value * 10**places
        if scaled.denominator == 1:
            digits = str(abs(scaled.numerator)).rjust(places + 1, "0")
            sign = "-" if value < 0 else ""
            return f"{sign}{digits[:-places]}.{digits[-places:]}"
    try:
        return f"{value} (about {format_number(float(value))})"
    except OverflowError:
        return str(value)


def _differences(terms: Sequence[Fraction]) -> list[Fraction]:
    return [after - before for before, after in pairwise(terms)]


def _rule(terms: Sequence[Fraction]) -> str:
    """Which rule the terms follow; the simplest that fits, as a person would read them."""
    if len(terms) < 3:
        raise ToolError("a sequence needs at least three terms to show its rule")
    if len(set(_differences(terms))) == 1:
        return "difference"
    ratios = {after / before for before, after in pairwise(terms) if before}
    if all(terms) and len(ratios) == 1:
        return "ratio"
    # With three terms a second difference or a two-term sum always or never fits by accident.
    if len(terms) >= 4 and len(set(_differences(_differences(terms)))) == 1:
        return "second difference"
    if len(terms) >= 4 and all(
        a + b == c for a, b, c in zip(terms, terms[1:], terms[2:], strict=False)
    ):
        return "sum"
    raise ToolError(
        "no rule fits; checked a constant difference, a constant ratio, a constant second "
        "difference and each term the sum of the two before (the last two need four terms)"
    )


_STEPS: dict[str, Callable[[Sequence[Fraction]], Fraction]] = {
    "difference": lambda t: 2 * t[-1] - t[-2],
    "ratio": lambda t: t[-1] * t[-1] / t[-2],
    "second difference": lambda t: 3 * t[-1] - 3 * t[-2] + t[-3],
    "sum": lambda t: t[-1] + t[-2],
}


def _describe(terms: Sequence[Fraction], rule: str) -> str:
    if rule == "difference":
        step = terms[1] - terms[0]
        if step == 0:
            return f"every number is {show(terms[0])}"
        return f"the sequence {'adds' if step > 0 else 'subtracts'} {show(abs(step))} each time"
    if rule == "ratio":
        ratio = terms[1] / terms[0]
        if ratio.numerator == 1:
            return f"the sequence divides by {ratio.denominator} each time"
        return f"the sequence multiplies by {show(ratio)} each time"
    if rule == "second difference":
        change = _differences(_differences(terms))[0]
        grow = "grow" if change > 0 else "shrink"
        return f"the differences between terms {grow} by {show(abs(change))} each time"
    return "each number is the sum of the two before it"


def continue_sequence(terms: Sequence[Fraction], count: int = 1) -> tuple[str, list[Fraction]]:
    """The rule the terms follow, in words, and the next `count` terms.

    >>> continue_sequence([Fraction(n) for n in (1, 1, 2, 3, 5)], 2)
    ('each number is the sum of the two before it', [Fraction(8, 1), Fraction(13, 1)])
    """
    rule = _rule(terms)
    extended = list(terms)
    for _ in range(count):
        term = _STEPS[rule](extended)
        if max(term.numerator.bit_length(), term.denominator.bit_length()) > MAX_INT_BITS:
            raise ToolError("the term is too large")
        extended.append(term)
    return _describe(terms, rule), extended[len(terms) :]
