"""What an exact tool understood of a question, and the one rule that lets it answer.

Every exact tool (calculator, units, text, numbers) parses the question into a `Reading`: the
text as it read it, what it will compute ("30 - 12"), the spans of that text its parse consumed,
the numbers it set aside with a reason, and how many different readings it found. `refusal` is
the single check all of them share, so "the tool understood the whole question" means the same
thing everywhere and is tested once:

- every number in the text is consumed by the parse, or set aside by a rule the reading names;
- no operative word (`OPERATIVE`: a word that changes what is computed, such as "each", "less",
  "not", "left") is left outside what the parse consumed;
- exactly one reading was found.

A tool that fails the check raises `ToolRefusalError`; the registry turns that into a failed
`ToolResult`, which teaches the tool policy and lets the engine fall back to the next tool.

>>> text = "a bus has 30 seats and 12 are empty. how many are taken?"
>>> refusal(Reading(text, "30 + 12", spans=((10, 12), (23, 25))))
"the words 'empty', 'taken' change the question but were not read"
>>> refusal(Reading("what is 30 - 12?", "30 - 12", spans=((0, 16),))) is None
True
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from text_to_num import alpha2digit, text2num

from engine.errors import ToolRefusalError

__all__ = ["NUMBER", "OPERATIVE", "Reading", "normalise", "refusal", "require_whole"]

# A number as the tools see it after `normalise`: digits with an optional sign, decimals or a
# fraction. A number glued to letters ("3rd", "x2") is not one.
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:/\d+)?(?![\w])")
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")

# Why a word list stays: no library says which English words change an arithmetic or counting
# question. This list is used only to REFUSE (a reading that leaves one of these words unread
# does not answer); it never decides an answer, so a missing word costs precision only where a
# parse also skipped it, and an extra word costs coverage, never correctness.
OPERATIVE = frozenset(
    {
        # comparison and change
        "more", "less", "fewer", "than", "left", "remain", "remains", "remaining", "rest",
        "extra", "additional", "another", "again", "instead", "difference", "change",
        "increase", "increased", "decrease", "decreased", "empty", "taken", "full", "missing",
        # grouping and rates
        "each", "every", "per", "apiece", "dozen", "dozens", "pair", "pairs", "twice", "double",
        "triple", "half", "halves", "quarter", "quarters", "third", "thirds", "percent",
        "times", "rate", "average", "total", "altogether", "together", "combined", "sum",
        "product", "share", "shared", "split", "divided", "equally", "between",
        # negation and exceptions
        "not", "no", "none", "without", "except", "excluding", "but", "only", "never",
        "unique", "different", "distinct", "repeat", "repeats", "repeated", "repeating",
        "once", "odd", "even", "prime", "mode", "same", "forwards", "forward", "end",
        "either", "neither", "nor", "or",
        # time order, which makes a question two-step
        "before", "after", "ago", "later", "earlier", "yesterday", "tomorrow",
        # change verbs a word-problem parse must consume if they are there
        "gave", "gives", "lost", "lose", "loses", "spent", "spend", "spends", "sold",
        "sell", "sells", "ate", "eat", "eats", "used", "use", "uses", "broke", "break",
        "bought", "buy", "buys", "got", "get", "gets", "found", "finds", "received",
        "receive", "receives", "earned", "earn", "earns", "won", "win", "wins", "joined",
        "join", "joins", "leave", "leaves", "removed", "remove", "removes", "added", "add",
        "adds", "plus", "minus", "subtract", "subtracted", "multiply", "multiplied", "divide",
        "borrowed", "borrow", "lent", "lend", "paid", "pay", "pays", "cost", "costs", "saved",
        "save", "saves", "took", "take", "takes", "donated", "donate", "dropped", "drop",
    }
)  # fmt: skip


# Why a rule stays: text2num reads whole numbers and ordinals, not fractions ("two thirds" comes
# out as "2 3rds"), and no kept library reads English fractions. Only the denominators are
# listed; numerators are read by text2num.
_DENOMINATORS = {
    "half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fourth": 4,
    "fourths": 4, "fifth": 5, "fifths": 5, "sixth": 6, "sixths": 6, "eighth": 8, "eighths": 8,
    "tenth": 10, "tenths": 10,
}  # fmt: skip
_SMALL = "one|two|three|four|five|six|seven|eight|nine"
_FRACTION = re.compile(
    rf"\b(?P<whole>\d+|{_SMALL}) and an? half\b"
    rf"|\b(?P<num>an?|\d+|{_SMALL})[ -](?P<den>{'|'.join(_DENOMINATORS)})\b"
    r"(?P<of> of (?:an?|the) (?=[a-z]))?"
    r"|\bhalf (?:of )?an? (?=[a-z])",
    re.IGNORECASE,
)


def _fraction(match: re.Match[str]) -> str:
    if match["whole"]:
        whole = match["whole"]
        return f"{whole if whole.isdigit() else text2num(whole.lower(), 'en')}.5"
    if match["den"] is None:  # "half a kilometre"
        return "0.5 "
    written = match["num"].lower()
    numerator = (
        1
        if written in ("a", "an")
        else int(written)
        if written.isdigit()
        else text2num(written, "en")
    )
    value = Fraction(numerator, _DENOMINATORS[match["den"].lower()])
    # "a quarter of an hour" is 0.25 hour (a quantity); "two thirds of 27" stays a fraction "of".
    if match["of"] and not match["of"].endswith("the ") and 1000 % value.denominator == 0:
        return f"{float(value)} "
    return f"{value.numerator}/{value.denominator}{match['of'] or ''}"


_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_CURRENCY = re.compile(r"[$£€](?=\d)")


def normalise(text: str, *, small_numbers: bool = True, lower: bool = True) -> str:
    """`text` as the readers parse it: lower case, one space, "1,200" as 1200, "$5" as 5, and
    number words as digits (text2num). With `small_numbers`, "one" and "two" become digits too;
    the units reader keeps them as words, where "one second" is not "1 2nd". `lower=False`
    keeps the case (pint tells "mL" from "ML").

    >>> normalise("A school has 1,200 students and three hundred fifty more join.")
    'a school has 1200 students and 350 more join.'
    >>> normalise("two thirds of 27, a quarter of an hour, two and a half litres, half a mile")
    '2/3 of 27, 0.25 hour, 2.5 litres, 0.5 mile'
    """
    text = (text.lower() if lower else text).replace("\u2212", "-").replace("\u2019", "'")
    text = _FRACTION.sub(_fraction, _CURRENCY.sub("", _THOUSANDS.sub("", text)))
    text = alpha2digit(text, "en", threshold=0 if small_numbers else 3)
    return re.sub(r"\s+", " ", text).strip()


@dataclass(frozen=True)
class Reading:
    """One tool's reading of a question: what it computes and which parts of the text it used.

    `spans` are (start, end) character ranges of `text` that the parse consumed; `distractors`
    are (number, reason) pairs for numbers the parse saw and showed to be irrelevant (a year in
    a name, say); `alternatives` is how many different readings the parse found.
    """

    text: str
    understood: str
    spans: tuple[tuple[int, int], ...]
    distractors: tuple[tuple[str, str], ...] = ()
    alternatives: int = 1

    def unread(self, pattern: re.Pattern[str]) -> list[str]:
        """The matches of `pattern` in `text` that no consumed span holds."""
        return [
            match.group()
            for match in pattern.finditer(self.text)
            if not any(start <= match.start() and match.end() <= end for start, end in self.spans)
        ]

    def leftovers(self) -> list[str]:
        """The words of `text` the parse did not consume."""
        return self.unread(_WORD)

    def unused_numbers(self) -> list[str]:
        """The numbers of `text` neither consumed nor set aside as distractors."""
        unused = self.unread(NUMBER)
        for number, _ in self.distractors:
            if number in unused:
                unused.remove(number)
        return unused


def refusal(reading: Reading) -> str | None:
    """Why `reading` does not account for its whole question; None when it does.

    >>> refusal(Reading("7 less than 20", "7 - 20", spans=((0, 1), (12, 14))))
    "the words 'less', 'than' change the question but were not read"
    >>> refusal(Reading("add 2 and 3 and 4", "2 + 3", spans=((0, 11),)))
    'the number 4 was not used'
    """
    if reading.alternatives != 1:
        return f"the question has {reading.alternatives} readings, not one"
    unused = reading.unused_numbers()
    if unused:
        return f"the number{'s' if len(unused) > 1 else ''} {', '.join(unused)} {_was(unused)}"
    operative = _unique(word for word in reading.leftovers() if word in OPERATIVE)
    if operative:
        shown = ", ".join(repr(word) for word in operative)
        if len(operative) == 1:
            return f"the word {shown} changes the question but was not read"
        return f"the words {shown} change the question but were not read"
    return None


def require_whole(reading: Reading) -> Reading:
    """`reading` itself when it accounts for its whole question; else raise `ToolRefusalError`."""
    why = refusal(reading)
    if why is not None:
        raise ToolRefusalError(f"refused: {why} (understood only {reading.understood!r})")
    return reading


def _was(items: list[str]) -> str:
    return "were not used" if len(items) > 1 else "was not used"


def _unique(words: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(words))
