"""Arithmetic read from a word problem: the calculator's fallback when no expression is written.

Why: questions put to the engine say "has 4 apples and gets 3 more", not "4 + 3", and a 135M model
rarely turns one into the other, so a calculator that needs symbols went unused. This reader
handles the plain one-operation-per-number problems of everyday English:

- numbers as digits or as words ("seven", "twenty-one", "a dozen"; `number_words`), but not
  "one", which is rarely an operand ("which one", "one of them");
- a few fixed forms, some of which put the second number first: "add A and B", "the sum of A
  and B", "take B (away) from A", "subtract B from A", "divide A among B", "B friends share A";
- otherwise a running total: the first number starts it, and each later number is added,
  subtracted, multiplied or divided by the cue words around it (before it, since the previous
  number, or after it, up to the next number or the end of its sentence): "gave away 3" and "3
  fewer" subtract, "3 in each box" and "3 per" multiply, "shared among 3" divides, "3 more" adds.

It refuses rather than guesses: a number with no cue, or with cues for two different operations
in the same place, raises `ToolError`, and so the tool policy learns that this kind of question
is not the calculator's. Word lists come from general English and the replay suite's phrasings
(`experiments/tasks.py`), never from the held-out split.

>>> word_problem_expression("Ann has 4 apples and gets 3 more. How many apples does she have?")
'4 + 3'
>>> word_problem_expression("There are six boxes with 5 pens in each box. How many pens?")
'6 * 5'
"""

import re

from engine.adapters.tools.number_words import digits_for_words
from engine.errors import ToolError

__all__ = ["word_problem_expression"]

_NUMBER = r"(\d+(?:\.\d+)?)"

# Forms where the operand written first is not the one the total starts from.
_FIXED = (
    (re.compile(rf"\b(?:add|adding|sum of|total of)\s+{_NUMBER}\s+(?:and|to|plus)\s+{_NUMBER}"),
     "{0} + {1}"),
    (re.compile(rf"\b(?:take|taking|subtract|subtracting|remove|removing)\s+{_NUMBER}\s+"
                rf"(?:\w+\s+){{0,2}}?(?:away\s+)?from\s+(?:\w+\s+){{0,2}}?{_NUMBER}"),
     "{1} - {0}"),
    (re.compile(rf"\bdifference between\s+{_NUMBER}\s+and\s+{_NUMBER}"), "{0} - {1}"),
    (re.compile(rf"\bproduct of\s+{_NUMBER}\s+and\s+{_NUMBER}"), "{0} * {1}"),
    (re.compile(rf"\b(?:divide|share|split)\s+{_NUMBER}\s+(?:\w+\s+){{0,2}}?(?:equally\s+)?"
                rf"(?:among|between|by|into)\s+{_NUMBER}"),
     "{0} / {1}"),
    (re.compile(rf"{_NUMBER}\s+(?:\w+\s+){{0,2}}?(?:share|split|divide)s?\s+(?:\w+\s+)?{_NUMBER}"),
     "{1} / {0}"),
)  # fmt: skip

# Cue words per operation; a number takes the operation whose cue is nearest to it.
_CUES = {
    "-": r"away|gave|gives|give|lost|loses|lose|spent|spends|spend|ate|eats|sold|sells|used|uses"
    r"|broke|breaks|removed|removes|fewer|less|minus|left|remain|remains|remaining|subtract"
    r"|dropped|drops|paid|pays|took|takes|donated|donates",
    "*": r"each|every|per|times|groups? of|rows? of|packs? of|sets? of|multiplied",
    "/": r"shared|share|shares|split|splits|divided|divide|divides|equally|among",
    "+": r"more|another|add|adds|added|plus|gets|got|gains|gained|buys|bought|finds|found"
    r"|receives|received|earns|earned|picks|picked|then|and|also|extra|additional|joined|joins",
}
_CUE = {op: re.compile(rf"\b(?:{words})\b") for op, words in _CUES.items()}
_SENTENCE_END = re.compile(r"[.?!;](?:\s|$)")


def word_problem_expression(text: str) -> str:
    """The arithmetic a plain word problem asks for, as an expression; `ToolError` if unclear.

    >>> word_problem_expression("Take 4 away from 19. What is left?")
    '19 - 4'
    >>> word_problem_expression("Sam had 12 cards and gave away 5. How many are left?")
    '12 - 5'
    """
    spoken = digits_for_words(text.lower(), one=False)
    for pattern, form in _FIXED:
        match = pattern.search(spoken)
        if match:
            return form.format(*match.groups())
    numbers = list(re.finditer(_NUMBER, spoken))
    if len(numbers) < 2:
        raise ToolError(
            "no arithmetic found: the question needs two numbers and how to combine them"
        )
    parts = [numbers[0].group()]
    for index, number in enumerate(numbers[1:], start=1):
        before = spoken[numbers[index - 1].end() : number.start()]
        later = numbers[index + 1].start() if index + 1 < len(numbers) else len(spoken)
        after = spoken[number.end() : later]
        end = _SENTENCE_END.search(after)
        after = after[: end.start()] if end else after
        parts.append(f"{_operation(before, after, number.group())} {number.group()}")
    expression = " ".join(parts)
    if "*" in expression or "/" in expression:
        # A running total reads left to right: 3 + 4 * 2 means (3 + 4) * 2 here.
        expression = _left_to_right(parts)
    return expression


def _operation(before: str, after: str, number: str) -> str:
    """The operation cued nearest to a number: words just before it, then just after it."""
    for window in (_last_words(before), _first_words(after), before, after):
        found = {op for op, cue in _CUE.items() if cue.search(window)}
        if len(found) > 1 and "+" in found:
            found.discard("+")  # "and gave away", "and 3 in each": the specific cue wins
        if len(found) == 1:
            return found.pop()
        if found:
            raise ToolError(f"cannot tell how {number} combines: {sorted(found)} are all cued")
    raise ToolError(f"cannot tell how {number} combines with the numbers before it")


def _last_words(text: str, count: int = 3) -> str:
    return " ".join(text.split()[-count:])


def _first_words(text: str, count: int = 4) -> str:
    return " ".join(text.split()[:count])


def _left_to_right(parts: list[str]) -> str:
    expression = parts[0]
    for index, part in enumerate(parts[1:]):
        expression = f"({expression}) {part}" if index else f"{expression} {part}"
    return expression
