"""Ordinals and small counts as questions write them: "third", "3rd", "second to last", "three".

The text tool reads "the third letter" and "the last word", the numbers tool "the 10th term" and
"the second largest", with the same words, so they are defined once, here.

>>> ordinal_value("second-to-last"), ordinal_name(-2), count_value("three")
(-2, 'second to last', 3)
"""

__all__ = ["COUNT_WORDS", "ORDINAL", "count_value", "ordinal_name", "ordinal_value"]

# Why these word lists stay: the ordinals and counts are alternatives inside the patterns that
# find a position phrase ("the third letter", "the first 3 letters") and are shared with the
# numbers tool. text2num reads them too, but only by rewriting the whole text, which would also
# rewrite the word being asked about ("How many letters in 'one'?"); the lists only locate a
# phrase, and `reading.require_whole` checks what the phrase did not consume.
_ORDINAL_WORDS = (
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
    "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
    "seventeenth", "eighteenth", "nineteenth", "twentieth",
)  # fmt: skip
COUNT_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_COUNTED = rf"(?:{'|'.join(_ORDINAL_WORDS)}|\d+(?:st|nd|rd|th))"
# "first", "3rd", "last", "second to last", "second-last", "penultimate".
ORDINAL = (
    rf"(?:(?:{_COUNTED}[\s-]+(?:to[\s-]+)?)?last|penultimate|next[\s-]+to[\s-]+last|{_COUNTED})"
)


def count_value(text: str) -> int:
    """The number a count names, in digits or a word from one to ten: "3" or "three" is 3."""
    word = text.lower()
    return COUNT_WORDS.index(word) + 1 if word in COUNT_WORDS else int(word)


def ordinal_value(text: str) -> int:
    """The position an ordinal names: 1 for "first" or "1st", -1 for "last", -2 for "second last".

    >>> [ordinal_value(x) for x in ("first", "3rd", "last", "second-to-last", "penultimate")]
    [1, 3, -1, -2, -2]
    """
    words = text.lower().replace("-", " ").split()
    if words[0] in ("penultimate", "next"):
        return -2
    if words[0] == "last":
        return -1
    head = words[0]
    value = _ORDINAL_WORDS.index(head) + 1 if head in _ORDINAL_WORDS else int(head[:-2])
    return -value if words[-1] == "last" else value


def ordinal_name(index: int) -> str:
    """The word for a position, the inverse of `ordinal_value`.

    >>> [ordinal_name(x) for x in (3, 22, -1, -2)]
    ['third', '22nd', 'last', 'second to last']
    """
    if index == -1:
        return "last"
    if index < 0:
        return f"{ordinal_name(-index)} to last"
    if index <= len(_ORDINAL_WORDS):
        return _ORDINAL_WORDS[index - 1]
    suffix = "th" if 10 <= index % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(index % 10, "th")
    return f"{index}{suffix}"
