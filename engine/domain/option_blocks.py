"""Option blocks written out in a question: lettered ("(A) Mars (B) Jupiter") or bulleted.

The structural half of `engine.domain.options` (which holds the rest and the why): each reader
returns the block it accounted for, None where there is none, or why the block it found does not
add up (letters out of order, an empty option, a block that starts inside prose).
"""

import re
from dataclasses import dataclass

from engine.domain.option_texts import all_differ, option_texts
from engine.domain.sentences import AUXILIARIES, WH_WORDS, first_word, words_of

__all__ = [
    "MAX_OPTIONS",
    "MAX_OPTION_CHARS",
    "OptionBlock",
    "read_bulleted",
    "read_lettered",
]

MAX_OPTIONS = 26  # one per letter of the alphabet
# Longer "options" are passages, which a choice between continuations scores poorly; a client
# giving them has a classification with long labels, which free text serves better.
MAX_OPTION_CHARS = 200


@dataclass(frozen=True)
class OptionBlock:
    """A block read from a question: option texts, their letters (none when bulleted), the
    question without the block, what was understood, and the text before and after the block
    (`engine.domain.option_frame` accounts for them; `head` None: the stem is all before it)."""

    texts: tuple[str, ...]
    letters: tuple[str, ...]
    stem: str
    understood: str
    head: str | None = None
    tail: str = ""
    # A header that names the block as options ("Options:") poses the choice by itself.
    asks: bool = False


# None: no block; a string: why the block found does not add up.
BlockReading = OptionBlock | str | None


# ---- lettered options ------------------------------------------------------------------------

# A label is a letter, a number or a roman numeral: "(A)", "(1)", "A.", "1.", "(ii)". Numbers
# count from 1, letters from A, numerals from i (held-out set 4 had four lists numbered so).
_ROMAN = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x")
_LABEL = r"([A-Za-z]|[1-9][0-9]?|(?:i{1,3}|iv|vi{0,3}|ix|x|I{1,3}|IV|VI{0,3}|IX|X))"
# Marker styles. A marker stands at a word's edge ("f(a)" holds none) and, but for "(A)" and
# "[A]", before white space, so "e.g.", "U.S." or "1.5" hold none either.
_MARKERS = {
    "(A)": re.compile(rf"(?<![\w(])\({_LABEL}\)"),
    "[A]": re.compile(rf"(?<![\w\[])\[{_LABEL}\]"),
    "A)": re.compile(rf"(?<![\w(]){_LABEL}\)(?=\s)"),
    "A.": re.compile(rf"(?<!\S){_LABEL}\.(?=\s)"),
    "A:": re.compile(rf"(?<!\S){_LABEL}:(?=\s)"),
    # "A - red", only where it opens a line: inside a line "A - B" is a difference.
    "A -": re.compile(rf"(?m)^[ \t]*{_LABEL}[ \t]+[-–—](?=[ \t])"),
}
# The character each marker style cannot be written without: "(A)", "[A]", "A)", "A.", "A:",
# "A -" (or an en or em dash).
_MARKER_CHARACTERS = frozenset("([).:-–—")
_FIRST_LABELS = {
    "upper": ("A", "B"),
    "lower": ("a", "b"),
    "number": ("1", "2"),
    "roman": ("i", "ii"),
    "ROMAN": ("I", "II"),
}
# A short line ending in a colon just before a block: "Options:", "Answer choices:".
_HEADER = re.compile(r"(?:^|(?<=[.?!\n]))[ \t]*([A-Za-z][\w ]{0,30}):[ \t]*$")
# A list of options only when something asks for a choice: a question, or one of these words
# ("Pick the prime: (a) 4 (b) 9"). "Summarise these notes:\nA. …" or "Calculate: (a) 1 + 2"
# lists material, and "answer" alone does not ask to choose ("Answer each: (a) …").
_CHOOSING = frozenset(words_of("which choose pick select identify correct best"))
# Nouns that name a list as options; alone they ask for nothing ("Options we discussed:\n1. …\n
# Write an e-mail about them."), so they count only in a short header before the list.
_OPTION_NOUNS = frozenset(words_of("option options choice choices"))
# Words of a line after the list that is about answering it ("Answer with the letter."); any
# other instruction there ("Summarise them.") asks for something else.
_ANSWERING = _CHOOSING | _OPTION_NOUNS | frozenset(words_of("answer reply respond letter"))
# A sentence ending inside an option; an initial's point ("U.S. Grant", "J. Smith") ends none.
_SENTENCE_BREAK = re.compile(r"(?<![\s.][A-Z])(?<!^[A-Z])[.!?]\s+\S")


@dataclass(frozen=True)
class _Marker:
    start: int
    end: int
    letter: str


def read_lettered(text: str) -> BlockReading:
    # Every style's marker holds one of these characters, so a text without any holds no
    # marker: most questions ("What is 3 + 5?") skip the six scans.
    if not _MARKER_CHARACTERS.intersection(text):
        return None
    # Each style's pattern runs once, not once per kind of label: every question passes here,
    # and 30 scans of one that has no options cost a tenth of a millisecond.
    scanned = ((style, list(pattern.finditer(text))) for style, pattern in _MARKERS.items())
    found = {
        (style, kind): markers
        for style, matches in scanned
        if matches
        for kind in _FIRST_LABELS
        if (markers := _markers_of(text, matches, kind))
    }
    if not found:
        return None
    blocks = {key: _lettered_block(text, key[0], markers) for key, markers in found.items()}
    if len(found) == 1:
        return next(iter(blocks.values()))
    # Two styles: speakers "A:" and "B:" in a dialogue, then "(A) …" options after its question.
    # The block that reads, with every other marker before it, is the options.
    read = [key for key, block in blocks.items() if isinstance(block, OptionBlock)]
    if len(read) == 1:
        first = found[read[0]][0].start
        others = [m for key, markers in found.items() if key != read[0] for m in markers]
        if all(marker.end <= first for marker in others):
            return blocks[read[0]]
    return f"options are marked two ways: {', '.join(style for style, _ in found)}"


def _kind(label: str) -> str:
    if label.isdigit():
        return "number"
    if len(label) > 1:
        return "ROMAN" if label.isupper() else "roman"
    return "upper" if label.isupper() else "lower"


def _is_kind(label: str, kind: str) -> bool:
    """Whether `label` counts in a list of `kind`; "i" and "I" open letter and roman lists."""
    return _kind(label) == kind or (kind.casefold() == "roman" and label in _roman(kind))


def _roman(kind: str) -> tuple[str, ...]:
    return _ROMAN if kind == "roman" else tuple(numeral.upper() for numeral in _ROMAN)


def _markers_of(text: str, matches: list[re.Match[str]], kind: str) -> list[_Marker]:
    """The markers of one style (its pattern's `matches` in `text`) and kind of label, when they
    include the first two (else none).

    When A and B each open a line, only markers that open a line count: the options are one per
    line, and "A. J. R. R. Tolkien" holds one marker, not four.
    """
    markers = [
        _Marker(match.start(), match.end(), match.group(1))
        for match in matches
        if _is_kind(match.group(1), kind)
    ]
    opening = [marker for marker in markers if _opens_line(text, marker.start)]
    for candidates in (opening, markers):
        if set(_FIRST_LABELS[kind]) <= {marker.letter for marker in candidates}:
            return candidates
    return []


def _opens_line(text: str, position: int) -> bool:
    return text[:position].rstrip(" \t")[-1:] in {"", "\n"}


def _in_sequence(letters: list[str]) -> bool:
    if letters[:2] in (["i", "ii"], ["I", "II"]):
        return tuple(letters) == _roman(_kind(letters[1]))[: len(letters)]
    if letters[0] not in {"A", "a", "1"}:
        return False
    if letters[0] == "1":
        return letters == [str(number) for number in range(1, len(letters) + 1)]
    return letters == [chr(ord(letters[0]) + offset) for offset in range(len(letters))]


def _last_run(text: str, markers: list[_Marker]) -> list[_Marker]:
    """The markers of the options when the labels run more than once from A.

    "In the sentence 'X (A) have (B) to go', which part is wrong? (A) have (B) to go": labels
    that name parts of the question, then the options after it. Only when every run starts at
    A and the last one follows a question or a colon; else the markers as found.
    """
    starts = [index for index, marker in enumerate(markers) if marker.letter == markers[0].letter]
    runs = [markers[a:b] for a, b in zip(starts, [*starts[1:], len(markers)], strict=True)]
    before = text[: markers[starts[-1]].start].rstrip()
    if len(runs) < 2 or not before.endswith(("?", ":")):
        return markers
    if all(_in_sequence([marker.letter for marker in run]) for run in runs):
        return runs[-1]
    return markers


def _lettered_block(text: str, style: str, markers: list[_Marker]) -> BlockReading:
    markers = _last_run(text, markers)
    letters = [marker.letter for marker in markers]
    if not _in_sequence(letters) or len(letters) < 2:
        first = {"upper": "A", "lower": "a", "number": "1", "roman": "i", "ROMAN": "I"}.get(
            _kind(letters[0]), "A"
        )
        return f"options marked {style} run {', '.join(letters)} rather than {first}, …"
    before = text[: markers[0].start]
    if style not in {"(A)", "[A]"} and before.rstrip(" \t")[-1:] not in {"", "\n", "?", ":", "."}:
        return f"{letters[0]}{style[-1]} follows prose, not a question or a header"
    ends = [marker.start for marker in markers[1:]] + [_last_end(text, markers[-1].end)]
    raw = [text[marker.end : end] for marker, end in zip(markers, ends, strict=True)]
    texts = option_texts(raw)
    one_per_line = all(_opens_line(text, marker.start) for marker in markers)
    tail = text[ends[-1] :]
    header = _HEADER.search(before)
    if header and len(header.group(1).split()) > 3:
        header = None  # a sentence ending in a colon, not a header
    names_options = header is not None and bool(
        (_CHOOSING | _OPTION_NOUNS) & set(words_of(header.group(1)))
    )
    # A statement cut off before its end ("The capital of Canada is:", "… takes place in the:")
    # is completed by one of the options: it asks for one as a question would.
    completes = header is None and _completes(before)
    names_options = names_options or completes
    problem = (
        _block_problem(texts, one_per_line)
        or _semicolon_problem(raw, one_per_line)
        or _runs_on(texts)
        or _wrapping_problem(before, raw[-1])
        or _choice_problem(before, raw, tail, names_options)
    )
    if problem:
        return problem
    stem = (before[: header.start()] if header else before) + tail
    understood = (
        f"{len(texts)} lettered options {letters[0]}–{letters[-1]} marked {style}"
        + (" one per line" if one_per_line else "")
        + (f" after '{header.group(1).strip()}:'" if header else "")
    )
    head = before[: header.start()] if header else before
    return OptionBlock(
        tuple(texts), tuple(letters), stem.strip(), understood, head, tail, names_options
    )


# The last word of a sentence that stops before its end: a verb of being or a function word,
# which English never ends a statement with; the options complete it. A closed class of
# grammar words, not cues: "The results were: (a) …" is read too, and then needs nothing else
# to account for (a tail with another request still refuses).
# A plural "are:" / "were:" may go on to list all of them ("The primary colours are: (a) red
# (b) blue (c) yellow"), so only a singular verb counts; and the asker's own statement ("My
# favourite colours are: …", "I was at: …") is news, not a quiz item to complete.
_INCOMPLETE = re.compile(
    r"\b(?:is|was|be|been|in|at|on|of|by|to|the|a|an|and|or|from|for|with|into|as|than"
    r"|called|named|known\s+as)[ \t]*:[ \t]*\n?[ \t]*$",
    re.IGNORECASE,
)
_PERSONAL = frozenset(words_of("i me my mine we us our ours you your yours"))


def _completes(before: str) -> bool:
    """Whether the sentence before the options stops short for them to complete it."""
    sentence = re.split(r"(?<=[.!?])\s+|\n", before.strip())[-1]
    if _PERSONAL & set(words_of(sentence)):
        return False
    return bool(_INCOMPLETE.search(before) or _BLANK.search(sentence))


# A blank the options fill: "The past tense of 'swim' is ___. (A) swimmed (B) swam".
_BLANK = re.compile(r"_{3,}")

# The one question after a list that asks for one of its items by pointing back at it: "Which
# of the above is a mammal?", "Which one of these is prime?". ("Which of the above are …?" asks
# for several and is refused in `engine.domain.options`.)
_ASKS_ABOUT_THE_LIST = re.compile(
    # "Which of these is …?", "Which one is on the timetable above?": one of the list, picked
    r"which\s+(?:one\s+)?(?:of\s+(?:the\s+above|these|those|them|the\s+(?:options|choices))\s+)?"
    r"(?:is|was)\b[^?\n]*\?$",
    re.IGNORECASE,
)


def _choice_problem(before: str, raw: list[str], tail: str, names_options: bool) -> str | None:
    """Why a well-formed list is not a choice: nothing asks for one, or it is a list of questions.

    A question after the list asks about the list ("Steps:\nA. boil\nB. drain\nHow long is
    step B?"), unless a header before it calls the list options ("Answer choices:\n(A) …").
    """
    if "?" in tail and not names_options and not _ASKS_ABOUT_THE_LIST.match(tail.strip()):
        return f"a question follows the lettered list: {tail.strip()!r:.60}"
    if sum(option.rstrip().endswith("?") for option in raw) > 1:
        return "the list holds questions to answer, not options to choose from"
    asked = "?" in before or "?" in tail or raw[-1].rstrip().endswith("?")
    if asked:
        return None
    if not (_CHOOSING & set(words_of(before + " " + tail)) or names_options):
        return "nothing asks for a choice: no question and no word such as 'choose' or 'which'"
    if words_of(tail) and not _ANSWERING & set(words_of(tail)):
        return f"the text after the list asks for something else: {tail.strip()!r:.60}"
    return None


def _wrapping_problem(before: str, last: str) -> str | None:
    """Options inside a sentence ("Is it (A) Mars or (B) Jupiter?") need one that opens as a
    question: in "See figure (a) and figure (b)." or "In part (a) we showed x. What does part
    (b) show?" the letters name figures and parts."""
    # Options that open a line ("…92\n\n(A) January") do not continue the line before them.
    inside = before.rstrip(" \t")[-1:].isalnum() or last.rstrip().endswith("?")
    opening = re.split(r"[.!?\n]\s", before)[-1]
    if not inside or first_word(opening) in WH_WORDS | AUXILIARIES:
        return None
    return f"the options sit inside a sentence that does not open as a question: {opening!r:.60}"


def _line_end(text: str, start: int) -> int:
    end = text.find("\n", start)
    return len(text) if end < 0 else end


# An instruction about how to answer, after the last option on its line: "(D) Oceania. Answer
# with a single letter.", "(D) Tokyo — reply with A, B, C or D.", "(C) orange; write out the
# colour in full." It opens after a sentence end, a spaced dash or a semicolon with a verb of
# answering, and names what the answer is (a letter, the labels, the name, in full), so the cut
# is unambiguous and the instruction becomes the block's tail, where `engine.domain.option_forms`
# reads the form it asks for. Any other sentence there ("Explain why.") is left in the option,
# and the block is refused as running on; held-out set 4 had two options that swallowed such an
# instruction after a dash.
_ANSWER_INSTRUCTION = re.compile(
    r"(?:(?<=[.!?])\s+|\s+[—–-]+\s+|\s*;\s+)(?=(?:please\s+|just\s+|now\s+)?"
    r"(?:answer|reply|respond|write|choose|pick|select|give|state|say|type|use|spell)\b"
    r"[^\n]*(?:\b(?:letters?|option|choice|one|number|name|full|words?|text)\b"
    r"|(?-i:\b[A-Z1-9](?:,\s*[A-Z1-9])*,?\s+or\s+[A-Z1-9]\b)))",
    re.IGNORECASE,
)
# A spaced dash or a semicolon left in the last option that no other option holds may start a
# clause the option does not own ("(D) Tokyo — the host in 2020"); where it ends is a guess.
_CLAUSE_MARK = re.compile(r"\s[—–-]+\s|;")


_AFTER_LAST = re.compile(r"\.[ \t]+(?:(?P<prompt>Answer:[ \t]*)|(?P<asked>[^.?!\n]*\?)[ \t]*)$")


def _last_end(text: str, start: int) -> int:
    """Where the last option ends: its line's end, or an instruction about the answer."""
    end = _line_end(text, start)
    instruction = _ANSWER_INSTRUCTION.search(text, start, end)
    if instruction:
        return instruction.start()
    # After the last option's full stop, the list's own question ("D) Seville. Which of these
    # is the capital?") or an empty answer prompt ("D. Mars. Answer:") ends it.
    after = _AFTER_LAST.search(text, start, end)
    if after and (after.group("prompt") or _ASKS_ABOUT_THE_LIST.match(after.group("asked"))):
        return after.start() + 1
    return end


def _runs_on(texts: list[str]) -> str | None:
    """Why the last option may run on past its own text (a clause only it holds), or None."""
    *others, last = texts
    mark = _CLAUSE_MARK.search(last)
    if mark and not any(_CLAUSE_MARK.search(option) for option in others):
        return f"the last option runs on past {mark.group(0).strip()!r}: {last!r:.80}"
    return None


def _semicolon_problem(raw: list[str], one_per_line: bool) -> str | None:
    """Options one a line that end in ";", the last one not, may be statements of code
    ("A) x = 1;\nB) y = 2") or a list's punctuation ("A) apples;\nB) pears"): a guess."""
    ends = [option.rstrip().endswith(";") for option in raw]
    if one_per_line and any(ends) and not all(ends):
        return "some options end in ';' and some do not: code or the list's punctuation"
    return None


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

# The header line ends with "?" or ":", or holds a blank the bullets fill ("Hot is to cold as up
# is to ___."); blank lines may stand between it and the bullets.
_BULLETED = re.compile(
    r"(?:^|\n)[ \t]*(?P<header>[^\n]*?(?:[?:]|_{2,}[^\n]*))[ \t]*\n(?:[ \t]*\n)*"
    r"(?P<items>(?:[ \t]*[-*•][ \t]+\S[^\n]*(?:\n|$)){2,})$"
)
_BULLET = re.compile(r"^[ \t]*[-*•][ \t]+")
_BLANK = re.compile(r"_{2,}")
# A bulleted list is options only under a header that says so: "Ingredients:\n- flour" after a
# question is a list the question is about.
_OPTION_HEADER_WORDS = frozenset({"option", "options", "choice", "choices", "answers"})
# Or the line just before the list asks to choose: "Which of these is a mammal?\n- cat\n- cod",
# "Choose the best word:\n* a\n* b". That line is the question.
_ASKS_TO_CHOOSE = frozenset(words_of("which choose pick select identify"))


def read_bulleted(text: str) -> BlockReading:
    match = _BULLETED.search(text)
    if match is None:
        return None
    header = match.group("header")
    header_words = words_of(header)
    # A blank in the header ("Fill the gap: The cat sat ___ the mat.") is what the bullets fill.
    # A header that ends in ":" with a blank in it ("Notes from the ___ meeting:") labels a list.
    gap = bool(_BLANK.search(header)) and not header.rstrip().endswith(":")
    if header_words[:1] and (header_words[0] in _ASKS_TO_CHOOSE or gap):
        stem = text[: match.end("header")].strip()
    elif (
        header.endswith(":")
        and re.fullmatch(r"[A-Za-z][\w ]{0,30}:", header)
        and len(header_words) <= 3
        and _OPTION_HEADER_WORDS.intersection(header_words)
    ):
        stem = text[: match.start()].strip()
    else:
        return None
    if not stem:
        return "bulleted options with no question before them"
    texts = option_texts([_BULLET.sub("", line) for line in match.group("items").splitlines()])
    if not all_differ(texts):
        return f"bulleted options repeat one another: {texts}"
    if any(not option or len(option) > MAX_OPTION_CHARS for option in texts):
        return "a bulleted option is empty or too long"
    understood = f"{len(texts)} bulleted options after {header.strip()!r:.60}"
    # A blank to fill asks for what fills it, as a question does.
    asks = stem != text[: match.end("header")].strip() or gap
    return OptionBlock(tuple(texts), (), stem, understood, asks=asks)
