"""Number words written as digits, for the tools that read plain English (units, word problems).

One reader, so "twenty-five", "a dozen" or "two and a half" mean the same to every tool. It
expects lower-case text.

>>> digits_for_words("twenty-five boxes, a dozen eggs and two and a half hours")
'25 boxes, 12 eggs and 2.5 hours'
>>> digits_for_words("which one of the three", one=False)
'which one of the 3'
"""

import re

__all__ = ["digits_for_words"]

# fmt: off
_ONES = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen",
)
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
# fmt: on
_MULTIPLIERS = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_COMPOUND = re.compile(rf"\b({'|'.join(_TENS)})(?:[- ]({'|'.join(_ONES[1:10])}))?\b")
_MULTIPLIED = re.compile(rf"(?:\ba|(?<![\d.])(\d+(?:\.\d+)?)) ({'|'.join(_MULTIPLIERS)})\b")


def digits_for_words(text: str, *, one: bool = True) -> str:
    """`text` with number words as digits; with `one=False` the word "one" stays a word
    (in "which one" or "one of them" it is no quantity to compute with)."""
    text = _COMPOUND.sub(
        lambda m: str(10 * (_TENS.index(m[1]) + 2) + (_ONES.index(m[2]) if m[2] else 0)), text
    )
    ones = [word for word in _ONES if one or word != "one"]
    text = re.sub(rf"\b({'|'.join(ones)})\b", lambda m: str(_ONES.index(m[1])), text)
    text = re.sub(r"(?<![\d.])(\d+) and a half\b", r"\1.5", text)
    text = re.sub(r"\bhalf an? dozen\b", "6", text)
    text = re.sub(r"\b(?:an?|(?<![\d.])(\d+)) dozens?\b", lambda m: str(12 * int(m[1] or 1)), text)
    return _MULTIPLIED.sub(_multiplied, text)


def _multiplied(match: re.Match[str]) -> str:
    value = float(match[1] or 1) * _MULTIPLIERS[match[2]]
    return str(int(value)) if value.is_integer() else str(value)
