"""Facts about a list of numbers in a question: the next term of a sequence, or a statistic.

Numbers are read from digits only ("-2", "3.5", "1,250"); a number glued to a word ("3rd", "x2")
is not one, so ordinals never join the list. As in the calculator, a comma before exactly three
digits is a thousands separator: "1,250" is one number, so a list is written "100, 200". The list
is the longest run of numbers separated only by commas, spaces, hyphens, "and", "or", "then" or
arrows; a run with a gap ("2, ?, 8", "1, 2, ..., 10") is refused: this tool continues a sequence
but does not fill gaps.

The question is read from cue words: the next term (or the next N terms, or the N-th term) of a
sequence, whose rule must be a constant difference, a constant ratio, a constant second difference
or each term the sum of the two before; the largest, smallest, N-th largest or N-th smallest (of
the different values), sum, product, average, median, range, sorted order and count. With no cue
word it reports the sequence's rule and next term if one fits, else the smallest, largest and sum.
A question about part of the list ("the even numbers", "greater than 5", "the first 3 numbers")
is refused rather than answered about the whole list. Results are exact fractions; one that is not
a short decimal is shown as a fraction with its approximate value.

>>> NumberList().run("What comes next: 2, 4, 6, 8?").output
'The sequence adds 2 each time, so the next number is 10.'
>>> NumberList().run("What is the average of 3, 4 and 8?").value
'5'
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

from engine.adapters.tools.answer_line import stated_value
from engine.adapters.tools.ordinals import (
    COUNT_WORDS,
    ORDINAL,
    count_value,
    ordinal_name,
    ordinal_value,
)
from engine.adapters.tools.reading import Reading, require_whole
from engine.adapters.tools.sequence_rule import continue_sequence, show
from engine.domain.records import ToolAnswer
from engine.errors import ToolError, ToolRefusalError

__all__ = ["MAX_INPUT_CHARS", "NumberList", "find_numbers"]

MAX_INPUT_CHARS = 200
MAX_TERM = 100  # the furthest term it computes: "the 100th term"
MAX_NEXT = 10  # the most terms "the next N numbers" may ask for

_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?(?!\w)")
# One character or word per repetition: a nested `\s+` would backtrack exponentially on a long gap.
_SEPARATOR = re.compile(r"(?:[-\s,;&]|and|or|then|->|→)+", re.IGNORECASE)
# "2, ?, 8", "2, _, 8", "1, 2, ..., 10" and "2, x, 8"; but "12 x 4" is a product, not a gap.
_GAP = re.compile(r"[\s,;]*(?:\?+|_+|\.{2,}|…|blank)[\s,;]*|\s*,\s*x\s*,\s*", re.IGNORECASE)
_ARITHMETIC = re.compile(
    r"\d\s*[+*/×÷^=]\s*[-+]?\d|\d\s+[-x]\s+\d|\b(?:plus|minus|times|divided|multiplied)\b",
    re.IGNORECASE,
)
_COUNT = "|".join(COUNT_WORDS)
_SOME = r"(?:even|odd|prime|positive|negative|whole)"
_PART = re.compile(
    rf"\b{_SOME}\s+(?:numbers?|ones|values)\s+(?:in|of|among|from)\b|\bhow\s+many\s+{_SOME}\b"
    r"|\b(?:greater|less|more|bigger|smaller|larger|higher|lower|fewer)\s+than\b"
    r"|\b(?:except|excluding|divisible)\b"
    rf"|\b(?:first|last)\s+(?:\d+|{_COUNT})\s+(?:numbers|terms|values)\b",
    re.IGNORECASE,
)
_LARGE = r"(?:largest|biggest|greatest|highest|maximum|max|larger|bigger|greater|higher)"
_SMALL = r"(?:smallest|lowest|least|minimum|min|smaller|lower|lesser)"
_EXTREME = f"(?:{_LARGE}|{_SMALL})"
# One alternative per answer, in priority order where two could match at the same place:
# "largest to smallest" is a sort, "second largest" is not the largest, "next 3" is not "next".
_CUES = re.compile(
    "|".join(
        (
            rf"(?P<kth>\b(?P<rank>{ORDINAL})[\s-]+{_EXTREME}\b)",
            rf"(?P<nth>\b(?P<position>{ORDINAL})\s+(?:term|number|element|value|item|entry)\b)",
            rf"(?P<next_many>\bnext\s+(?P<many>\d+|{_COUNT})\s+(?:terms|numbers|values)\b)",
            r"(?P<next>\bnext\b|\bcomes?\s+after\b|\bcontinue|\bextend|\bfollows\b)",
            rf"(?P<range>\brange\b|\bdifference\s+between\s+the\s+{_EXTREME}(?:\s+(?:number|value))?"
            rf"\s+and\s+(?:the\s+)?{_EXTREME}\b)",
            rf"(?P<descending>\bdescending\b|\bdecreasing\b|\b{_LARGE}\s+to\s+(?:the\s+)?{_SMALL}\b"
            r"|\bhigh\s+to\s+low\b)",
            rf"(?P<ascending>\bascending\b|\bincreasing\b|\b{_SMALL}\s+to\s+(?:the\s+)?{_LARGE}\b"
            r"|\blow\s+to\s+high\b|\bsort|\border\b|\barrange)",
            rf"(?P<largest>\b{_LARGE}\b)",
            rf"(?P<smallest>(?<!at\s)\b{_SMALL}\b)",
            r"(?P<sum>\bsum\b|\btotal\b|\badd(?:ed)?\b|\baltogether\b)",
            r"(?P<product>\bproduct\b|\bmultiply\b)",
            r"(?P<mean>\baverage\b|\bmean\b)",
            r"(?P<median>\bmedian\b|\bmiddle\s+(?:number|value)\b)",
            r"(?P<count>\bhow\s+many\s+(?:numbers|values|terms|items)\b|\bcount\b"
            r"|\bnumber\s+of\s+(?:numbers|values|terms|items)\b)",
        )
    ),
    re.IGNORECASE,
)
_SEQUENCE_CUES = frozenset({"next", "next_many", "nth"})
# Words that name the list itself; they change nothing, but "numbers" after a count is read here.
# What may stand around a bare sequence with no cue word: the question's frame, no content.
_FRAME = frozenset({"what", "is", "the", "this", "a", "in", "of", "here", "s"})
_SEQUENCE_WORDS = re.compile(r"\b(?:sequence|series|pattern|list|set)\b", re.IGNORECASE)
# Cues that pick one number out of the list. A question may go on to ask about the number picked
# ("how many digits does the largest have", "the square of the smallest", "the sum of the two
# largest"), which this tool does not compute: answered with the pick, it would be wrong. So a
# pick answers only a question whose other words just frame it (`_PICK_FRAME`), with no other cue.
_PICKS = frozenset({"largest", "smallest", "kth", "nth"})
_PICK_FRAME = _FRAME | {
    "and", "whats", "what's", "which", "are", "was", "an", "among", "from", "out", "these",
    "those", "following", "number", "numbers", "value", "values", "one", "ones", "find", "give",
    "me", "tell", "name",
    "please", "can", "you", "could", "i", "determine", "identify", "pick", "choose", "select",
}  # fmt: skip


def find_numbers(text: str) -> list[Fraction]:
    """The list of numbers in `text`: its longest run of numbers with only separators between.

    >>> [str(number) for number in find_numbers("Sort these numbers: 3, -1.5, 10 and 2")]
    ['3', '-3/2', '10', '2']
    """
    return _find_list(text)[0]


def _find_list(text: str) -> tuple[list[Fraction], tuple[int, int]]:
    """The list of numbers in `text` and the span of text it covers."""
    if len(text) > MAX_INPUT_CHARS:
        raise ToolError(f"input is longer than {MAX_INPUT_CHARS} characters")
    text = text.replace("−", "-")
    runs: list[list[re.Match[str]]] = []
    gapped: set[int] = set()
    for match in _NUMBER.finditer(text):
        between = text[runs[-1][-1].end() : match.start()] if runs else ""
        if runs and _GAP.fullmatch(between):
            gapped.add(len(runs) - 1)
        if runs and (_SEPARATOR.fullmatch(between) or _GAP.fullmatch(between)):
            runs[-1].append(match)
        else:
            runs.append([match])
    longest = max((len(run) for run in runs), default=0)
    if longest < 2:
        raise ToolError(
            "found no list of two or more numbers (in digits, separated by commas, spaces or 'and')"
        )
    chosen = [index for index, run in enumerate(runs) if len(run) == longest]
    if len(chosen) > 1:
        raise ToolError(f"found {len(chosen)} separate lists of {longest} numbers; give one list")
    if chosen[0] in gapped:
        raise ToolError("the list has a gap; this tool continues a sequence but does not fill gaps")
    run = runs[chosen[0]]
    return [Fraction(match.group().replace(",", "")) for match in run], (
        run[0].start(),
        run[-1].end(),
    )


def _nth_term(numbers: list[Fraction], match: re.Match[str]) -> str:
    position = ordinal_value(match["position"])
    if position == 0 or -position > len(numbers):
        raise ToolError(f"there is no {match.group().lower()} in a list of {len(numbers)}")
    if position <= len(numbers):
        value = numbers[position - 1] if position > 0 else numbers[position]
        return f"the {ordinal_name(position)} number is {show(value)}"
    if position > MAX_TERM:
        raise ToolError(f"can compute terms up to the {ordinal_name(MAX_TERM)} only")
    rule, after = continue_sequence(numbers, position - len(numbers))
    return f"{rule}, so the {ordinal_name(position)} term is {show(after[-1])}"


def _kth(numbers: list[Fraction], match: re.Match[str]) -> str:
    rank = ordinal_value(match["rank"])
    largest = re.search(_LARGE, match.group(), re.IGNORECASE) is not None
    values = sorted(set(numbers), reverse=largest)
    if not 0 < rank <= len(values):
        raise ToolError(
            f"there is no {match.group().lower()} among {len(values)} different numbers"
        )
    which = "largest" if largest else "smallest"
    return f"the {ordinal_name(rank)} {which} number is {show(values[rank - 1])}"


def _next_many(numbers: list[Fraction], match: re.Match[str]) -> str:
    count = count_value(match["many"])
    if not 0 < count <= MAX_NEXT:
        raise ToolError(f"can give the next 1 to {MAX_NEXT} numbers")
    rule, after = continue_sequence(numbers, count)
    return f"{rule}, so the next {count} numbers are {', '.join(show(term) for term in after)}"


def _next(numbers: list[Fraction]) -> str:
    rule, after = continue_sequence(numbers)
    return f"{rule}, so the next number is {show(after[0])}"


def _sorted(numbers: list[Fraction], descending: bool) -> str:
    order = "from largest to smallest" if descending else "from smallest to largest"
    return f"{order}: {', '.join(show(n) for n in sorted(numbers, reverse=descending))}"


def _median(numbers: list[Fraction]) -> Fraction:
    ordered = sorted(numbers)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def _product(numbers: list[Fraction]) -> Fraction:
    result = Fraction(1)
    for number in numbers:  # the input bound keeps this small: at most 200 digits in all
        result *= number
    return result


def _largest(numbers: list[Fraction]) -> str:
    return f"the largest number is {show(max(numbers))}"


def _smallest(numbers: list[Fraction]) -> str:
    return f"the smallest number is {show(min(numbers))}"


def _sum(numbers: list[Fraction]) -> str:
    return f"the sum is {show(sum(numbers, Fraction(0)))}"


_Answer = Callable[[list[Fraction], re.Match[str]], str]
_ANSWERS: dict[str, _Answer] = {
    "kth": _kth,
    "nth": _nth_term,
    "next_many": _next_many,
    "next": lambda n, _: _next(n),
    "range": lambda n, _: f"the range (largest minus smallest) is {show(max(n) - min(n))}",
    "descending": lambda n, _: _sorted(n, descending=True),
    "ascending": lambda n, _: _sorted(n, descending=False),
    "largest": lambda n, _: _largest(n),
    "smallest": lambda n, _: _smallest(n),
    "sum": lambda n, _: _sum(n),
    "product": lambda n, _: f"the product is {show(_product(n))}",
    "mean": lambda n, _: f"the average is {show(sum(n, Fraction(0)) / len(n))}",
    "median": lambda n, _: f"the median is {show(_median(n))}",
    "count": lambda n, _: f"the count of numbers is {len(n)}",
}


def _sentence(clauses: list[str]) -> str:
    text = clauses[0] if len(clauses) == 1 else ", ".join(clauses[:-1]) + " and " + clauses[-1]
    return text[0].upper() + text[1:] + "."


def _uncued(numbers: list[Fraction], question: str, span: tuple[int, int]) -> str:
    """No cue word: the next term of a bare sequence ("2, 4, 6, 8, ?"), and nothing else.

    A question with words besides the list and words naming it ("sequence", "pattern") asks
    something this tool did not read ("the mode", "the odd one out"), so it is refused rather
    than answered with the list's facts.
    """
    if _ARITHMETIC.search(question):
        raise ToolError("this looks like arithmetic, not a list of numbers; use the calculator")
    outside = _SEQUENCE_WORDS.sub(" ", question[: span[0]] + " " + question[span[1] :])
    words = [word for word in re.findall(r"[a-z]+", outside.lower()) if word not in _FRAME]
    if words:
        unread = ", ".join(words)
        raise ToolRefusalError(f"did not understand what is asked about the list ({unread})")
    return _sentence([_next(numbers)])


def _require_only_the_pick(reading: Reading, names: set[str | None]) -> None:
    """Refuse a question that picks a number and asks more than the pick (see `_PICKS`)."""
    others = sorted(str(name) for name in names - _PICKS)
    if others:
        raise ToolRefusalError(
            f"refused: the question picks one number and also asks for {', '.join(others)}; "
            f"understood only {reading.understood!r}"
        )
    unread = [word for word in reading.leftovers() if word not in _PICK_FRAME]
    if unread:
        shown = ", ".join(repr(word) for word in dict.fromkeys(unread))
        raise ToolRefusalError(
            f"refused: {shown} may ask about the number picked, and were not read; "
            f"understood only {reading.understood!r}"
        )


def _value(clause: str) -> str:
    return stated_value(_sentence([clause]))


# "the first 4 terms", "these 5 numbers": a count of the list itself.
_LENGTH = re.compile(r"(?<![\w.])(\d+)\s+(?:numbers|terms|values|items)\b", re.IGNORECASE)


def _lengths(question: str, numbers: list[Fraction]) -> tuple[tuple[str, str], ...]:
    """Numbers the question sets aside by a rule it can show: a count of the list's own terms
    ("these 4 numbers: 3, -1, 10 and 2"), which is the list's length."""
    return tuple(
        (match[1], "it counts the list's own numbers")
        for match in _LENGTH.finditer(question)
        if int(match[1]) == len(numbers)
    )


@dataclass(frozen=True)
class NumberList:
    """The number-list tool: finds the list in its argument and answers what the question asks,
    when the list and the cue words account for the whole question (`reading.require_whole`)."""

    # Pure computation on at most `MAX_INPUT_CHARS` characters: run on the caller's thread
    # (`engine.adapters.tools.registry`).
    inline: ClassVar[bool] = True
    name: str = "numbers"
    description: str = (
        "Facts about a list of numbers: the next number of a sequence, the largest, smallest, "
        "sum, average, median or sorted order. Give it the question with its numbers, e.g. "
        "What comes next: 2, 4, 6, 8?"
    )

    def run(self, argument: str) -> ToolAnswer:
        argument = argument.replace("−", "-")
        numbers, span = _find_list(argument)
        cues = list(_CUES.finditer(argument))
        names = {cue.lastgroup for cue in cues}
        part = _PART.search(argument)
        if part and not (names and names <= _SEQUENCE_CUES):
            raise ToolError(f"'{part.group()}' asks about part of the list; I answer for all of it")
        clauses: list[str] = []
        for cue in cues:
            if cue.lastgroup == "ascending" and "descending" in names:
                continue  # "sort in descending order" names both
            clause = _ANSWERS[str(cue.lastgroup)](numbers, cue)
            if clause not in clauses:
                clauses.append(clause)
        sentence = _sentence(clauses) if clauses else _uncued(numbers, argument, span)
        spans = (
            span,
            *(cue.span() for cue in cues),
            *(m.span() for m in _SEQUENCE_WORDS.finditer(argument)),
        )
        reading = Reading(
            argument.lower(), sentence, spans=spans, distractors=_lengths(argument, numbers)
        )
        require_whole(reading)
        if names & _PICKS:
            _require_only_the_pick(reading, names)
        return ToolAnswer(
            output=sentence,
            # Two facts ("the largest is 9 and the smallest is 1") are two values, not the last.
            value=stated_value(sentence) if len(clauses) < 2 else ", ".join(map(_value, clauses)),
            provenance=f"parsed the whole question and found: {sentence}",
            fully_parsed=True,
        )
