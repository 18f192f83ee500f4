"""Exact checkers: pull the final answer out of a model's text and score it against the truth.

Small models format loosely, so extraction is forgiving about *where* the answer is ("Answer: x"
anywhere, bold markers, a trailing period, a lone option letter, the last number) and strict about
*what* it is: a score is 1.0 or 0.0, never partial credit for a near miss. Extraction looks first at
the last explicit "Answer:" line, because the templates ask for one and the working above it is
full of numbers and letters that are not the answer.

>>> check_answer("17 + 25 = 42, so\\n**Answer:** 42.", 42, "numeric")
1.0
>>> check_answer("The answer is (B) Jupiter", "B", "choice")
1.0
>>> check_answer("Answer: March 11, 2024", "2024-03-11", "date")
1.0
>>> check_answer("Answer: The Eiffel Tower!", "eiffel tower", "exact")
1.0
"""

import math
import re
import unicodedata
from collections.abc import Callable, Sequence
from datetime import date

__all__ = [
    "ANSWER_KINDS",
    "check_answer",
    "checker_for",
    "extract_final_answer",
    "find_dates",
    "infer_kind",
    "normalize_text",
    "parse_number_words",
]

ANSWER_KINDS = ("numeric", "exact", "choice", "date")

# Bold markers; "__" only at a word's edge, so "snake__case" or "0__0" keeps its own underscores.
_BOLD = re.compile(r"\*\*|(?<!\w)__|__(?!\w)")
_MARKER = re.compile(
    r"(?:final\s+answer|answer)\s*(?:is\s*[:=]?|[:=])\s*(?P<value>[^\n]*)", re.IGNORECASE
)
_BOXED = re.compile(r"\\boxed\{([^{}\n]*)\}")
_PLACEHOLDER = re.compile(r"^[<\[{(]\s*(?:your |the |final )*answer\s*[>\]})]$", re.IGNORECASE)
# A sign only where it cannot be subtraction ("10-3" ends in 3, not -3), and no number glued to
# a word, a slash or a point: "11/03/2024" holds no number, "3/4" is one.
_NUMBER = re.compile(
    r"(?:(?<![\w).])[-+−])?(?<![\w/.])"
    r"(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?|\.\d+)"
    r"(?:\s*/\s*(?P<denominator>\d+))?(?![\w/])"
)
_LONE_LETTER = re.compile(r"^\(?([A-Za-z])\)?[.):]?$")
# "B", "B)", "(b)", "B." or "B: Jupiter", not "a dog": a bare letter before a word is an article.
_LEADING_LETTER = re.compile(r"^\(?([A-Za-z])(?:\)|[.:](?!\w)|$)")
_OPTION_WORD = re.compile(r"\b(?:option|choice|letter)\s*\(?([A-Za-z])\b\)?", re.IGNORECASE)
_OPTION_MARK = re.compile(r"(?:^|(?<=\s))\(?([A-J])\)(?=\s|$|[.,;])|\(([A-J])\)")
_EDGES = " \t\"'`*_.,;:!?"
# A last line cut off by the token limit: an open calculation ("6 + 3 =") or a bare list number.
_CUT_OFF = re.compile(r"(?:[-+*/×÷=]|^\s*\d{1,2}[.)]?)\s*$")
# An answer that is a sum still to work out: "17 * 23", "5 + 3" ("3/4" is a number, "1990-2000"
# a range; neither counts).
_UNWORKED = re.compile(r"^\s*[-+]?\d[\d,.]*\s*(?:[*×x·÷^+]|\s-\s)\s*\d")
_ECHO = re.compile(r"\s*question\s*:", re.IGNORECASE)  # small models repeat the prompt's line
_LIST_NUMBER = re.compile(r"^\s*\d{1,2}[.)][ \t]+(?=\S)", re.MULTILINE)
# "... is X": the tail of the last line, when it is a few words without digits.
_COPULA = re.compile(r"\b(?:is|are|was|were)\s*:?\s+(?P<tail>[^\n]+?)\s*$", re.IGNORECASE)
_ARTICLES = re.compile(r"\b(?:a|an|the)\b")


def extract_final_answer(text: str) -> str | None:
    """Return the final answer written in `text`, or None when there is none to find.

    In order: the last "Answer: x" (also "Final answer:", "The answer is x", a LaTeX \\boxed{x});
    a reply that is only an option letter; the few words after "is" ending the last line ("The
    first letter is 'o'."); the last number, ignoring list numbers and a line cut off by the
    token limit; a reply that is one short line.

    >>> extract_final_answer("Steps...\\nAnswer: **Paris**.")
    'Paris'
    >>> extract_final_answer("(c)"), extract_final_answer("so we get 1,234 in all")
    ('c', '1,234')
    >>> extract_final_answer("I am not sure what you mean by that, could you say more about it?")
    """
    _require_text(text)
    marked = _marked_value(text)
    if marked is not None:
        return marked
    stripped = text.strip()
    lone = _LONE_LETTER.match(stripped)
    if lone:
        return lone.group(1)
    settled = _settled(text)
    copula = _COPULA.search(settled.rstrip().rsplit("\n", 1)[-1])
    if copula:
        tail = _clean(copula.group("tail"))
        if tail and len(tail.split()) <= 4 and not re.search(r"\d", tail):
            return tail
    numbers = list(_NUMBER.finditer(settled))
    if numbers:
        return numbers[-1].group().strip()
    if stripped and "\n" not in stripped and len(stripped) <= 60:
        return _clean(stripped) or None
    return None


def check_answer(
    answer_text: str,
    expected: str | float | date,
    kind: str,
    *,
    rel_tol: float = 1e-6,
    abs_tol: float = 1e-9,
    options: Sequence[str] | None = None,
) -> float:
    """Score the answer in `answer_text` against `expected`: 1.0 when it matches, else 0.0.

    Kinds:
    - "numeric": a whole `expected` within `abs_tol`, any other within `rel_tol` or `abs_tol`;
      "1,234", "3/4", "50%" and "twenty-two" read as numbers;
    - "exact": text equal after `normalize_text`;
    - "choice": an option letter; `options` (the option texts, in order A, B, ...) lets an
      answer that quotes an option's text count as its letter;
    - "date": `expected` an ISO date or a `date`; an answer may write it as ISO, "March 5,
      2024", "5 March 2024", or with slashes (read both day-first and month-first).
    An unknown kind, or an `expected` that does not fit its kind, raises ValueError.
    """
    _require_text(answer_text)
    if kind == "numeric":
        return _score(_answer_number(answer_text), _expected_number(expected), rel_tol, abs_tol)
    if kind == "exact":
        return _check_exact(answer_text, expected)
    if kind == "choice":
        return _check_choice(answer_text, expected, options)
    if kind == "date":
        return _check_date(answer_text, expected)
    raise ValueError(f"unknown answer kind {kind!r}; expected one of {', '.join(ANSWER_KINDS)}")


def infer_kind(expected: str) -> str:
    """The answer kind an expected answer most plausibly is, when the caller gave none.

    >>> [infer_kind(x) for x in ("42", "3/4", "2024-03-11", "B", "Canberra")]
    ['numeric', 'numeric', 'date', 'choice', 'exact']
    """
    text = expected.strip()
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return "date"
    if _LONE_LETTER.match(text) and text.strip("().:").isupper():
        return "choice"
    if _NUMBER.fullmatch(text) or parse_number_words(text) is not None:
        return "numeric"
    return "exact"


def checker_for(expected: str, kind: str | None = None) -> Callable[[str], float]:
    """An exact checker for `expected`: `checker(answer_text) -> 1.0 or 0.0`.

    The kind is inferred when None (`infer_kind`). A kind that `expected` does not fit raises
    ValueError now, before any model is asked.

    >>> checker_for("42")("So the total is 42.")
    1.0
    >>> checker_for("soon", "date")
    Traceback (most recent call last):
    ...
    ValueError: expected answer 'soon' does not fit kind 'date': ...
    """
    truth = expected.strip()
    if not truth:
        raise ValueError("the expected answer is empty")
    chosen = kind or infer_kind(truth)
    probe = {"numeric": "0", "date": "2000-01-01"}.get(chosen, "a")
    try:
        check_answer(probe, truth, chosen)
    except ValueError as error:
        raise ValueError(
            f"expected answer {truth!r} does not fit kind {chosen!r}: {error}"
        ) from None
    return lambda answer_text: check_answer(answer_text, truth, chosen)


def normalize_text(text: str) -> str:
    """Normalise text for an exact comparison: case, accents, punctuation, articles, spacing.

    Articles are dropped unless nothing else is left, so "a" still answers "first letter of apple".

    >>> normalize_text("  The  Café-Olé! ")
    'cafe ole'
    >>> normalize_text("'A'")
    'a'
    """
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).casefold())
    kept = "".join(
        " " if unicodedata.category(char).startswith(("P", "Z", "C", "Sk")) else char
        for char in decomposed
        if not unicodedata.combining(char)
    )
    words = kept.split()
    without_articles = _ARTICLES.sub(" ", " ".join(words)).split()
    return " ".join(without_articles or words)


# ---------------------------------------------------------------------------------------------
# Extraction


def _require_text(text: object) -> None:
    if not isinstance(text, str):
        raise TypeError(f"answer text must be a string, got {type(text).__name__}")


def _marked_value(text: str) -> str | None:
    """The value of the last "Answer:" line (or \\boxed{}) that is not an echoed placeholder."""
    unbolded = _BOLD.sub("", text)
    values = [match.group("value") for match in _MARKER.finditer(unbolded)]
    values += [match.group(1) for match in _BOXED.finditer(unbolded)]
    for value in reversed(values):
        cleaned = _clean(value)
        if cleaned and not _PLACEHOLDER.match(cleaned):
            return cleaned
    return None


def _clean(value: str) -> str:
    cleaned = value.strip(_EDGES)
    # Keep a number's decimal point and an option's bracket: "3." is 3, "(B" is no answer.
    if cleaned.startswith("(") and cleaned.count("(") > cleaned.count(")"):
        cleaned = cleaned[1:].strip()
    return cleaned


def _settled(text: str) -> str:
    """The text without echoed "Question:" lines, a cut-off last line and list numbers."""
    lines = [line for line in text.rstrip().split("\n") if not _ECHO.match(line)]
    if len(lines) > 1 and _CUT_OFF.search(lines[-1]):
        lines.pop()
    return _LIST_NUMBER.sub("", "\n".join(lines))


def _numbers_in(text: str) -> list[float]:
    values = []
    for match in _NUMBER.finditer(text):
        raw = match.group().replace("−", "-").replace(" ", "")
        numerator, _, denominator = raw.partition("/")
        value = float(numerator.replace(",", ""))
        if denominator:
            if float(denominator) == 0:
                continue
            value /= float(denominator)
        values.append(value)
    return values


def _answer_number(text: str) -> float | None:
    marked = _marked_value(text)
    if marked is not None:
        # "Answer: 5 + 17 = 22" means 22; "Answer: 22 (5 + 17)" means 22 too.
        result = marked.rsplit("=", 1)[-1]
        if _UNWORKED.match(result):  # "Answer: 17 * 23" states no result: not 17, not 23
            return None
        numbers = _numbers_in(result)
        if numbers:
            return numbers[0]
        spelled = parse_number_words(result)
        if spelled is not None:
            return spelled
    numbers = _numbers_in(_settled(text))
    return numbers[-1] if numbers else parse_number_words(text.strip(_EDGES))


# ---------------------------------------------------------------------------------------------
# Scoring by kind


def _expected_number(expected: object) -> float:
    if isinstance(expected, bool) or not isinstance(expected, int | float | str):
        raise ValueError(f"expected {expected!r} is not a number (kind 'numeric')")
    if isinstance(expected, str):
        numbers = _numbers_in(expected)
        if len(numbers) != 1:
            raise ValueError(f"expected {expected!r} is not a number (kind 'numeric')")
        expected = numbers[0]
    value = float(expected)
    if not math.isfinite(value):
        raise ValueError(f"expected {expected!r} is not a finite number (kind 'numeric')")
    return value


def _score(answer: float | None, expected: float, rel_tol: float, abs_tol: float) -> float:
    if answer is None or not math.isfinite(answer):
        return 0.0
    if expected.is_integer():  # a count is right or wrong: 999,999 is not a million
        return 1.0 if abs(answer - expected) <= abs_tol else 0.0
    return 1.0 if math.isclose(answer, expected, rel_tol=rel_tol, abs_tol=abs_tol) else 0.0


def _check_exact(answer_text: str, expected: object) -> float:
    if not isinstance(expected, str) or not normalize_text(expected):
        raise ValueError(f"expected {expected!r} is not a non-empty text (kind 'exact')")
    answer = _marked_value(answer_text)
    if answer is None:
        answer = extract_final_answer(answer_text)
    if answer is None:
        return 0.0
    return 1.0 if normalize_text(answer) == normalize_text(expected) else 0.0


def _expected_letter(expected: object) -> str:
    letter = expected.strip(" ().:") if isinstance(expected, str) else ""
    if len(letter) != 1 or not letter.isascii() or not letter.isalpha():
        raise ValueError(f"expected {expected!r} is not an option letter (kind 'choice')")
    return letter.upper()


def _answer_letter(answer_text: str, options: Sequence[str] | None) -> str | None:
    marked = _marked_value(answer_text)
    if marked is not None:
        leading = _LEADING_LETTER.match(marked) or _OPTION_WORD.search(marked)
        if leading:
            return leading.group(1).upper()
        return _letter_of_option(marked, options)
    stripped = answer_text.strip()
    lone = _LONE_LETTER.match(stripped)
    if lone:
        return lone.group(1).upper()
    named = list(_OPTION_WORD.finditer(answer_text))
    if named:
        return named[-1].group(1).upper()
    # Letters marked like options; a reply that lists several of them only echoes the options.
    marks = {next(g for g in match.groups() if g) for match in _OPTION_MARK.finditer(answer_text)}
    if len(marks) == 1:
        return marks.pop()
    return _letter_of_option(stripped, options)


def _letter_of_option(answer: str, options: Sequence[str] | None) -> str | None:
    if not options:
        return None
    wanted = normalize_text(answer)
    for index, option in enumerate(options):
        if wanted and normalize_text(option) == wanted:
            return chr(ord("A") + index)
    return None


def _check_choice(answer_text: str, expected: object, options: Sequence[str] | None) -> float:
    letter = _expected_letter(expected)
    return 1.0 if _answer_letter(answer_text, options) == letter else 0.0


def _check_date(answer_text: str, expected: object) -> float:
    if isinstance(expected, date):
        wanted = expected
    elif isinstance(expected, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", expected.strip()):
        try:
            wanted = date.fromisoformat(expected.strip())
        except ValueError:
            raise ValueError(f"expected {expected!r} is not a real date (kind 'date')") from None
    else:
        raise ValueError(f"expected {expected!r} is not an ISO date YYYY-MM-DD (kind 'date')")
    marked = _marked_value(answer_text)
    mentions = find_dates(marked) if marked is not None else []
    mentions = mentions or find_dates(answer_text)
    return 1.0 if mentions and wanted in mentions[-1] else 0.0


# ---------------------------------------------------------------------------------------------
# Numbers in words and dates in text

_UNITS = {
    word: value
    for value, word in enumerate(
        # A word list reads best as one string.
        "zero one two three four five six seven eight nine ten eleven twelve thirteen "  # noqa: SIM905
        "fourteen fifteen sixteen seventeen eighteen nineteen".split()
    )
}
_TENS = {
    word: 10 * value
    for value, word in enumerate(
        "twenty thirty forty fifty sixty seventy eighty ninety".split(),  # noqa: SIM905
        2,
    )
}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}


def parse_number_words(text: str) -> float | None:
    """Read a number written in English words, e.g. "minus twenty-two"; None if it is not one.

    >>> parse_number_words("one hundred and five"), parse_number_words("seven apples")
    (105.0, None)
    """
    words = re.sub(r"[-,]", " ", text.casefold()).split()
    sign = -1.0 if words[:1] in (["minus"], ["negative"]) else 1.0
    words = [word for word in words[1 if sign < 0 else 0 :] if word != "and"]
    if not words:
        return None
    total, current = 0, 0
    for word in words:
        if word in _UNITS:
            current += _UNITS[word]
        elif word in _TENS:
            current += _TENS[word]
        elif word == "hundred":
            current = max(current, 1) * 100
        elif word in _SCALES:
            total += max(current, 1) * _SCALES[word]
            current = 0
        else:
            return None
    return sign * (total + current)


_MONTHS = (  # noqa: SIM905 - one string reads best
    "january february march april may june july august september october november december"
).split()
_MONTH_NUMBER = {name: n for n, month in enumerate(_MONTHS, 1) for name in (month, month[:3])}
_MONTH_NUMBER["sept"] = 9
_MONTH = "|".join(sorted(_MONTH_NUMBER, key=len, reverse=True))
_DATE = re.compile(
    r"\b(?P<iy>\d{4})-(?P<im>\d{1,2})-(?P<id>\d{1,2})\b"
    rf"|\b(?P<nm>{_MONTH})\.? (?P<nd>\d{{1,2}})(?:st|nd|rd|th)?,? (?P<ny>\d{{4}})\b"
    rf"|\b(?P<dd>\d{{1,2}})(?:st|nd|rd|th)? (?:of )?(?P<dm>{_MONTH})\.?,? (?P<dy>\d{{4}})\b"
    r"|\b(?P<sa>\d{1,2})[/.](?P<sb>\d{1,2})[/.](?P<sy>\d{4})\b",
    re.IGNORECASE,
)


def find_dates(text: str) -> list[set[date]]:
    """Every date written in `text`, in order; each mention as the set of dates it may mean.

    A slash date such as 03/05/2024 may be day- or month-first, so it stands for both.

    >>> find_dates("from 2024-02-29 to 3rd of March, 2024")
    [{datetime.date(2024, 2, 29)}, {datetime.date(2024, 3, 3)}]
    """
    mentions = []
    for match in _DATE.finditer(" ".join(text.split())):
        found = match.groupdict()
        if found["iy"]:
            readings = [(found["iy"], found["im"], found["id"])]
        elif found["ny"]:
            readings = [(found["ny"], _MONTH_NUMBER[found["nm"].lower()], found["nd"])]
        elif found["dy"]:
            readings = [(found["dy"], _MONTH_NUMBER[found["dm"].lower()], found["dd"])]
        else:
            readings = [
                (found["sy"], found["sa"], found["sb"]),
                (found["sy"], found["sb"], found["sa"]),
            ]
        dates = set()
        for year, month, day in readings:
            try:
                dates.add(date(int(year), int(month), int(day)))
            except ValueError:  # 2023-02-30 and the like: not a date
                continue
        if dates:
            mentions.append(dates)
    return mentions
