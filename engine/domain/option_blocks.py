"""Option blocks written out in a question: lettered ("(A) Mars (B) Jupiter") or bulleted.

The structural half of `engine.domain.options` (which holds the rest and the why): each reader
returns the block it accounted for, None where there is none, or why the block it found does not
add up (letters out of order, an empty option, a block that starts inside prose).
"""

import re
from dataclasses import dataclass

from engine.domain.sentences import AUXILIARIES, WH_WORDS, first_word

__all__ = ["MAX_OPTIONS", "MAX_OPTION_CHARS", "OptionBlock", "read_bulleted", "read_lettered"]

MAX_OPTIONS = 26  # one per letter of the alphabet
# Longer "options" are passages, which a choice between continuations scores poorly; a client
# giving them has a classification with long labels, which free text serves better.
MAX_OPTION_CHARS = 200


@dataclass(frozen=True)
class OptionBlock:
    """A block read from a question: option texts, their letters (none when bulleted), the
    question before the block, and what was understood."""

    texts: tuple[str, ...]
    letters: tuple[str, ...]
    stem: str
    understood: str


# None: no block; a string: why the block found does not add up.
BlockReading = OptionBlock | str | None


def _key(text: str) -> str:
    return " ".join(text.casefold().split())


# ---- lettered options ------------------------------------------------------------------------

# Marker styles. A marker stands at a word's edge ("f(a)" holds none) and, but for "(A)", before
# white space, so "e.g." or "U.S." hold none either.
_MARKERS = {
    "(A)": re.compile(r"(?<![\w(])\(([A-Za-z])\)"),
    "A)": re.compile(r"(?<![\w(])([A-Za-z])\)(?=\s)"),
    "A.": re.compile(r"(?<!\S)([A-Za-z])\.(?=\s)"),
    "A:": re.compile(r"(?<!\S)([A-Za-z]):(?=\s)"),
}
# A short line ending in a colon just before a block: "Options:", "Answer choices:".
_HEADER = re.compile(r"(?:^|(?<=[.?!\n]))[ \t]*([A-Za-z][\w ]{0,30}):[ \t]*$")
# A sentence ending inside an option; an initial's point ("U.S. Grant", "J. Smith") ends none.
_SENTENCE_BREAK = re.compile(r"(?<![\s.][A-Z])(?<!^[A-Z])[.!?]\s+\S")
_CONNECTOR = re.compile(r"(?:[,;]\s*|\s+)(?:or|and)$|[,;]$")
_ABBREVIATION = re.compile(r"(?:\b\w\.)+$")


@dataclass(frozen=True)
class _Marker:
    start: int
    end: int
    letter: str


def read_lettered(text: str) -> BlockReading:
    found = {
        (style, upper): markers
        for style, pattern in _MARKERS.items()
        for upper in (True, False)
        if (markers := _markers_of(text, pattern, upper))
    }
    if len(found) > 1:
        return f"options are marked two ways: {', '.join(style for style, _ in found)}"
    if not found:
        return None
    ((style, _), markers), *_ = found.items()
    return _lettered_block(text, style, markers)


def _markers_of(text: str, pattern: re.Pattern[str], upper: bool) -> list[_Marker]:
    """The markers of one style and case, when they include both A and B (else none).

    When A and B each open a line, only markers that open a line count: the options are one per
    line, and "A. J. R. R. Tolkien" holds one marker, not four.
    """
    markers = [
        _Marker(match.start(), match.end(), match.group(1))
        for match in pattern.finditer(text)
        if match.group(1).isupper() == upper
    ]
    opening = [marker for marker in markers if _opens_line(text, marker.start)]
    for candidates in (opening, markers):
        if {"A", "B"} <= {marker.letter.upper() for marker in candidates}:
            return candidates
    return []


def _opens_line(text: str, position: int) -> bool:
    return text[:position].rstrip(" \t")[-1:] in {"", "\n"}


def _lettered_block(text: str, style: str, markers: list[_Marker]) -> BlockReading:
    letters = [marker.letter for marker in markers]
    expected = [chr(ord(letters[0]) + offset) for offset in range(len(letters))]
    if letters[0].upper() != "A" or letters != expected:
        return f"options marked {style} run {', '.join(letters)} rather than A, B, C, …"
    before = text[: markers[0].start]
    if style != "(A)" and before.rstrip(" \t")[-1:] not in {"", "\n", "?", ":", "."}:
        return f"{letters[0]}{style[-1]} follows prose, not a question or a header"
    ends = [marker.start for marker in markers[1:]] + [_line_end(text, markers[-1].end)]
    raw = [text[marker.end : end] for marker, end in zip(markers, ends, strict=True)]
    texts = [_option_text(option) for option in raw]
    one_per_line = all(_opens_line(text, marker.start) for marker in markers)
    tail = text[ends[-1] :]
    problem = (
        _block_problem(texts, one_per_line)
        or _wrapping_problem(before, raw[-1])
        or (f"a question follows the lettered list: {tail.strip()!r:.60}" if "?" in tail else None)
    )
    if problem:
        return problem
    header = _HEADER.search(before)
    if header and len(header.group(1).split()) > 3:
        header = None  # a sentence ending in a colon, not a header
    stem = before[: header.start()] if header else before
    understood = (
        f"{len(texts)} lettered options {letters[0]}–{letters[-1]} marked {style}"
        + (" one per line" if one_per_line else "")
        + (f" after '{header.group(1).strip()}:'" if header else "")
    )
    return OptionBlock(tuple(texts), tuple(letters), stem.strip(), understood)


def _wrapping_problem(before: str, last: str) -> str | None:
    """Options inside a sentence ("Is it (A) Mars or (B) Jupiter?") need one that opens as a
    question: in "See figure (a) and figure (b)." or "In part (a) we showed x. What does part
    (b) show?" the letters name figures and parts."""
    inside = before.rstrip()[-1:].isalnum() or last.rstrip().endswith("?")
    opening = re.split(r"[.!?\n]\s", before)[-1]
    if not inside or first_word(opening) in WH_WORDS | AUXILIARIES:
        return None
    return f"the options sit inside a sentence that does not open as a question: {opening!r:.60}"


def _line_end(text: str, start: int) -> int:
    end = text.find("\n", start)
    return len(text) if end < 0 else end


def _option_text(raw: str) -> str:
    """An option's text without the list's own punctuation: "Mars, or" -> "Mars"."""
    text = " ".join(raw.split())
    text = _CONNECTOR.sub("", text).strip()
    if text.endswith("?") or (text.endswith(".") and not _ABBREVIATION.search(text)):
        text = text[:-1].rstrip()
    return text


def _block_problem(texts: list[str], one_per_line: bool) -> str | None:
    for letter_index, option in enumerate(texts):
        if not option:
            return f"option {chr(ord('A') + letter_index)} is empty"
        if len(option) > MAX_OPTION_CHARS:
            return f"option {chr(ord('A') + letter_index)} is over {MAX_OPTION_CHARS} characters"
    # On one line, a sentence that ends inside an option means the letters are not a list.
    checked = texts[-1:] if one_per_line else texts
    broken = [option for option in checked if _SENTENCE_BREAK.search(option)]
    if broken:
        return f"an option runs on into more text: {broken[0]!r:.80}"
    return None


# ---- bulleted options under a header -----------------------------------------------------------

_BULLETED = re.compile(
    r"(?:^|\n)[ \t]*(?P<header>[A-Za-z][\w ]{0,30}):[ \t]*\n"
    r"(?P<items>(?:[ \t]*[-*•][ \t]+\S[^\n]*(?:\n|$)){2,})$"
)
_BULLET = re.compile(r"^[ \t]*[-*•][ \t]+")
# A bulleted list is options only under a header that says so: "Ingredients:\n- flour" after a
# question is a list the question is about.
_OPTION_HEADER_WORDS = frozenset({"option", "options", "choice", "choices", "answers"})


def read_bulleted(text: str) -> BlockReading:
    match = _BULLETED.search(text)
    if match is None:
        return None
    header_words = match.group("header").casefold().split()
    if len(header_words) > 3 or not _OPTION_HEADER_WORDS.intersection(header_words):
        return None
    stem = text[: match.start()].strip()
    if not stem:
        return "bulleted options with no question before them"
    texts = [_option_text(_BULLET.sub("", line)) for line in match.group("items").splitlines()]
    if len({_key(option) for option in texts}) != len(texts):
        return f"bulleted options repeat one another: {texts}"
    if any(not option or len(option) > MAX_OPTION_CHARS for option in texts):
        return "a bulleted option is empty or too long"
    understood = f"{len(texts)} bulleted options after '{match.group('header').strip()}:'"
    return OptionBlock(tuple(texts), (), stem, understood)
