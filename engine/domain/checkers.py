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
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from engine.domain.written_values import find_dates, only_date, parse_number_words

__all__ = [
    "ANSWER_KINDS",
    "ExpectedChecker",
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

    A number (digits, a fraction, a percentage or words) is "numeric"; an upper-case option
    letter, or any letter in brackets, "choice" (a bare "a" may be the first letter of "apple");
    a text that is one date, however written, "date"; anything else "exact".

    >>> [infer_kind(x) for x in ("42", "3/4", "50%", "seven", "B", "(c)", "a", "Canberra")]
    ['numeric', 'numeric', 'numeric', 'numeric', 'choice', 'choice', 'exact', 'exact']
    >>> [infer_kind(x) for x in ("2024-03-11", "March 11, 2024", "11 March 2024 at noon")]
    ['date', 'date', 'exact']
    """
    text = expected.strip()
    if _NUMBER.fullmatch(text.removesuffix("%").rstrip()) or parse_number_words(text) is not None:
        return "numeric"
    letter = _LONE_LETTER.match(text)
    if letter and (letter.group(1).isupper() or re.match(r"\(|[A-Za-z]\)", text)):
        return "choice"
    if only_date(text) is not None:
        return "date"
    return "exact"


@dataclass(frozen=True)
class ExpectedChecker:
    """An exact checker built from an expected answer: `checker(answer_text) -> 1.0 or 0.0`.

    `expected` is the answer as it is compared (a date as ISO), `kind` its answer kind, and
    `inferred` whether the kind was inferred rather than given (a page may say so).
    """

    expected: str
    kind: str
    inferred: bool = False

    def __call__(self, answer_text: str) -> float:
        return check_answer(answer_text, self.expected, self.kind)


def checker_for(expected: str, kind: str | None = None) -> ExpectedChecker:
    """The one builder of a checker from an expected answer: the library, the CLI, the REST API
    and the playground all call it, so one expected answer is checked the same way everywhere.

    The kind is inferred when None or empty (`infer_kind`). A date of the "date" kind may be
    written in any way that means one day ("March 11, 2024"); it is compared as ISO. An unknown
    kind, or an expected answer that does not fit its kind, raises ValueError now, before any
    model is asked.

    >>> checker_for("42")("So the total is 42.")
    1.0
    >>> checker_for("twelve")
    ExpectedChecker(expected='12', kind='numeric', inferred=True)
    >>> checker_for("March 11, 2024", "date")
    ExpectedChecker(expected='2024-03-11', kind='date', inferred=False)
    >>> checker_for("soon", "date")
    Traceback (most recent call last):
    ...
    ValueError: expected answer 'soon' does not fit kind 'date': ...
    """
    truth = expected.strip()
    if not truth:
        raise ValueError("the expected answer is empty")
    if kind and kind not in ANSWER_KINDS:
        raise ValueError(f"unknown answer kind {kind!r}; expected one of {', '.join(ANSWER_KINDS)}")
    chosen = kind or infer_kind(truth)
    if chosen == "date":
        day = only_date(truth)
        truth = day.isoformat() if day is not None else truth
    spelled = parse_number_words(truth) if chosen == "numeric" else None
    if spelled is not None:  # "twelve" is inferred numeric: it is compared as 12
        truth = f"{spelled:g}"
    probe = {"numeric": "0", "date": "2000-01-01"}.get(chosen, "a")
    try:
        check_answer(probe, truth, chosen)
    except ValueError as error:
        raise ValueError(
            f"expected answer {expected.strip()!r} does not fit kind {chosen!r}: {error}"
        ) from None
    return ExpectedChecker(truth, chosen, inferred=not kind)


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
