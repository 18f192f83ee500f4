"""Exact facts about one word or short phrase, which small models get wrong: they see tokens.

The subject is the quoted word ('...', "...", ‘...’ or “...”), else the word after "the word",
"spell", "reverse", "does", "in" or "of". The question is read from cue words: how many times a
letter occurs (or whether it occurs at all), how many letters, characters, vowels (a, e, i, o, u),
consonants or different letters it has, the n-th letter (also "starts with", "ends with", "the
first three letters"), the most common letter, the word backwards or spelled out, and whether it
is a palindrome. Counting is case-insensitive: 'R' and 'r' are one letter. Positions and
reversals keep the case as written. A question it cannot read is refused, naming what it
understood, so that the answering model never copies a guess.

>>> TextFacts().run("How many times does the letter 'r' appear in the word 'strawberry'?").output
"The letter 'r' occurs 3 times in 'strawberry'."
>>> TextFacts().run("What is the third letter of orange?").value
'a'
>>> TextFacts().run("How many letters are in Mississippi, not counting repeats?")
Traceback (most recent call last):
...
engine.errors.ToolRefusalError: refused: the words 'not', 'repeats' change the question but ...
"""

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from engine.adapters.tools.answer_line import stated_value
from engine.adapters.tools.reading import Reading, require_whole
from engine.domain.records import ToolAnswer
from engine.errors import ToolError

__all__ = [
    "COUNT_WORDS",
    "MAX_INPUT_CHARS",
    "ORDINAL",
    "TextFacts",
    "count_value",
    "find_subject",
    "ordinal_name",
    "ordinal_value",
]

MAX_INPUT_CHARS = 200
VOWELS = "aeiou"  # y is a consonant here: "rhythm" has no vowels, as school exercises count it

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
# "first", "3rd", "last", "second to last", "second-last", "penultimate". The numbers tool reads
# "the 10th term" and "the second largest" with the same words, so they are defined once, here.
ORDINAL = (
    rf"(?:(?:{_COUNTED}[\s-]+(?:to[\s-]+)?)?last|penultimate|next[\s-]+to[\s-]+last|{_COUNTED})"
)

# A word: letters or digits, with inner hyphens or apostrophes ("don't", "well-known").
_WORD = r"[^\W_]+(?:[-'’][^\W_]+)*"
_QUOTED = re.compile(r"(?<!\w)'(.+?)'(?!\w)|(?<!\w)\"(.+?)\"(?!\w)|‘(.+?)’(?!\w)|“(.+?)”")
_NAMED_BEFORE = re.compile(r"\b(?:word|name|phrase|string)\s*$", re.IGNORECASE)
_BEFORE_SUBJECT = re.compile(
    r"\b(?:word|name|phrase|string|in|of|spell|reverse)\s*$", re.IGNORECASE
)
# Where an unquoted subject is, most specific first; the last pattern takes its last match.
_UNQUOTED = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        rf"\bthe\s+(?:word|name|phrase|string|term)\s+({_WORD})",
        rf"\bis\s+({_WORD})\s+an?\s+palindrome",
        rf"\b({_WORD})\s+(?:spel(?:led|t)\s+)?(?:backwards?|in\s+reverse|reversed)\b",
        rf"\b(?:spell(?:ed)?(?:\s+out)?|reverse|write)\s+({_WORD})",
        rf"\bdoes\s+({_WORD})\s+(?:have|contain|include|start|begin|end)",
        rf"\bhow\s+long\s+is\s+({_WORD})",
        rf"\b(?:in|of)\s+({_WORD})",
    )
)
_BARE = re.compile(rf"\s*({_WORD})\s*[?.!]?\s*")  # the argument is the word alone
# Words that follow "in", "of" or "spell" without being the subject ("in the alphabet", "spell it").
_NOT_SUBJECTS = frozenset((
    "a", "an", "the", "it", "its", "it's", "this", "that", "these", "those", "there", "here",
    "what", "which", "how", "is", "are", "me", "my", "your", "his", "her", "their", "all",
    "word", "words", "letter", "letters", "character", "characters", "vowel", "vowels",
    "consonant", "consonants", "total", "order", "reverse", "backwards", "backward", "out",
    "alphabet", "english", "spelled", "spelt",
))  # fmt: skip
_PLACEHOLDER = " _subject_ "
_CHAR = r"[^\W_]"
_TARGETS = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        rf"\b(?:letter|character)\s+({_CHAR})(?!\w)",
        rf"\b({_CHAR})['’]s\b",
        rf"\b(?:many|count)\s+(?:the\s+)?({_CHAR})s?(?!\w)",
        rf"\b({_CHAR})\s+(?:occurs?|appears?|shows?\s+up)\b",
        rf"\b(?:contains?|includes?|has|have|is\s+there|are\s+there)\s+(?:an?\s+)?({_CHAR})(?!\w)",
    )
)
_COUNT = re.compile(
    r"\bhow\s+(?:many|often)\b|\bcount|\bnumber\s+of\b|\boccur|\bappear|\btimes\b|\bfrequency",
    re.IGNORECASE,
)
_CONTAIN = re.compile(r"\b(?:contains?|includes?|has|have|is\s+there|are\s+there)\b", re.IGNORECASE)
_LENGTH = re.compile(
    r"\bhow\s+long\b|\blength\b|\bletters?\s+long\b"
    r"|\b(?:how\s+many|number\s+of|count(?:\s+the)?)\s+(?:letters|characters|chars)\b",
    re.IGNORECASE,
)
_NTH = re.compile(
    rf"\b(?P<before>{ORDINAL})\s+(?:letter|character|char)(?P<from_end>\s+from\s+the\s+(?:end|right|back))?\b"
    rf"|\b(?:letter|character)\s+(?:(?:comes|is|appears)\s+)?(?P<after>{ORDINAL})\b"
    r"|\b(?:letter|character)\s+(?:at\s+)?(?:position|number|no\.?)\s*(?P<position>\d+)\b"
    r"|\b(?P<start>starts?|begins?)\s+with\b|\b(?P<end>ends?)\s+with\b",
    re.IGNORECASE,
)
_PREFIX = re.compile(
    rf"\b(?P<side>first|last)\s+(?P<size>\d+|{'|'.join(COUNT_WORDS)})\s+(?:letters|characters)\b",
    re.IGNORECASE,
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


def find_subject(text: str) -> tuple[str, int, int]:
    """The word the question is about, and the span it (with its quotes) takes in `text`.

    >>> find_subject("How many r's are in strawberry?")
    ('strawberry', 20, 30)
    >>> find_subject("Is 'level' a palindrome?")[0]
    'level'
    """
    quoted = [
        (next(group for group in match.groups() if group is not None), *match.span())
        for match in _QUOTED.finditer(text)
    ]
    # A quoted single character is the letter asked about, unless it follows "the word".
    words = [item for item in quoted if len(item[0]) > 1 or _NAMED_BEFORE.search(text[: item[1]])]
    if len(words) > 1:
        words = [item for item in words if _BEFORE_SUBJECT.search(text[: item[1]])] or words
    if len(words) > 1:
        shown = ", ".join(repr(word) for word, _, _ in words)
        raise ToolError(f"several quoted words ({shown}); say which one with 'the word ...'")
    if words:
        return words[0]
    bare = _BARE.fullmatch(text)
    if bare:
        return bare.group(1), *bare.span(1)
    for index, pattern in enumerate(_UNQUOTED):
        found = [match for match in pattern.finditer(text) if _is_subject(match.group(1))]
        if found:
            match = found[-1] if index == len(_UNQUOTED) - 1 else found[0]
            return match.group(1), *match.span(1)
    raise ToolError("found no word to examine; put the word in quotes, e.g. 'strawberry'")


def _is_subject(word: str) -> bool:
    return word.lower() not in _NOT_SUBJECTS


def _target(rest: str) -> str | None:
    """The single character the question asks about, if any: 'r', the letter r, r's, many rs."""
    for match in _QUOTED.finditer(rest):
        quoted = next(group for group in match.groups() if group is not None)
        if len(quoted) != 1:
            raise ToolError(f"can count single letters only, not {quoted!r}")
        return quoted
    for pattern in _TARGETS:
        found = pattern.search(rest)
        if found:
            return found.group(1)
    return None


def _letters(subject: str) -> str:
    letters = "".join(char for char in subject if char.isalpha())
    return letters or subject


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _named(subject: str) -> str:
    return f"the {'phrase' if ' ' in subject.strip() else 'word'} '{subject}'"


def _sentence(text: str) -> str:
    return text[0].upper() + text[1:] + "."


# "a palindrome", or what it means: "reads the same forwards and backwards", "both ways".
_PALINDROME = re.compile(
    r"palindrom\w*|\bthe\s+same\s+(?:(?:forwards?|backwards?)\s+(?:and|as)\s+(?:forwards?|backwards?)"
    r"|both\s+ways|either\s+way|in\s+reverse)",
    re.IGNORECASE,
)


def _palindrome(subject: str, rest: str) -> str | None:
    if not _PALINDROME.search(rest):
        return None
    folded = [char for char in subject.casefold() if char.isalnum()]
    if folded == folded[::-1]:
        return f"Yes, '{subject}' is a palindrome: it reads the same backwards."
    return f"No, '{subject}' is not a palindrome: backwards it reads '{subject[::-1]}'."


def _reverse(subject: str, rest: str) -> str | None:
    if not re.search(r"\bbackwards?\b|\breverse[ds]?\b|\breversing\b", rest, re.IGNORECASE):
        return None
    return f"'{subject}' spelled backwards is '{subject[::-1]}'."


def _units(subject: str, rest: str) -> tuple[str, str]:
    """What positions count, and their name: characters if the question says so, else letters."""
    if re.search(r"\bchar", rest, re.IGNORECASE):
        return subject, "character"
    return _letters(subject), "letter"


def _prefix(subject: str, rest: str) -> str | None:
    prefix = _PREFIX.search(rest)
    if prefix is None:
        return None
    units, noun = _units(subject, rest)
    size, side = count_value(prefix["size"]), prefix["side"].lower()
    if size == 0:
        raise ToolError(f"asks for 0 {noun}s")
    if size > len(units):
        raise ToolError(f"'{subject}' has only {_plural(len(units), noun)}")
    part = units[:size] if side == "first" else units[-size:]
    return f"The {side} {size} {noun}s of '{subject}' are '{part}'."


def _position(subject: str, rest: str) -> str | None:
    units, noun = _units(subject, rest)
    match = _NTH.search(rest)
    if match is None:
        return None
    if match["start"] or match["end"]:
        index = 1 if match["start"] else -1
    elif match["position"]:
        index = int(match["position"])
    else:
        index = ordinal_value(match["before"] or match["after"])
        if match["from_end"]:  # "the 2nd letter from the end" is the second to last
            if index < 0:
                raise ToolError("'from the end' of a position already counted from the end")
            index = -index
    if index == 0:
        raise ToolError(f"there is no 0th {noun}: the first {noun} is number 1")
    if abs(index) > len(units):
        raise ToolError(f"'{subject}' has only {_plural(len(units), noun)}")
    letter = units[index - 1] if index > 0 else units[index]
    return f"The {ordinal_name(index)} {noun} of '{subject}' is '{letter}'."


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


def _most_common(subject: str, rest: str) -> str | None:
    cue = (
        r"\bmost\s+(?:common|frequent|often|repeated)\b|\b(?:occurs?|appears?)\s+(?:the\s+)?most\b"
    )
    if not re.search(cue, rest, re.IGNORECASE):
        return None
    counts = Counter(char.casefold() for char in _letters(subject))
    top = max(counts.values())
    tied = [f"'{char}'" for char, count in counts.items() if count == top]
    if len(tied) == 1:
        return f"The most common letter in '{subject}' is {tied[0]}."
    return f"The most common letters in '{subject}' are {', '.join(tied[:-1])} and {tied[-1]}."


def _distinct(subject: str, rest: str) -> str | None:
    cue = r"\b(?:different|distinct|unique)\s+(?:letters|characters)"
    if not re.search(cue, rest, re.IGNORECASE):
        return None
    count = len({char.casefold() for char in _letters(subject)})
    return f"The number of different letters in '{subject}' is {count}."


def _vowels(subject: str, rest: str) -> str | None:
    kind = re.search(r"\b(vowel|consonant)s?\b", rest, re.IGNORECASE)
    if kind is None or not _COUNT.search(rest):
        return None
    letters = [char for char in subject.casefold() if char.isalpha()]
    if kind.group(1).lower() == "vowel":
        count = sum(char in VOWELS for char in letters)
        return f"The number of vowels (a, e, i, o, u) in '{subject}' is {count}."
    count = sum(char not in VOWELS for char in letters)
    return f"The number of consonants in '{subject}' is {count}."


def _occurrences(subject: str, rest: str) -> str | None:
    target = _target(rest)
    counting = _COUNT.search(rest)
    if target is None or not (counting or _CONTAIN.search(rest)):
        return None
    count = sum(char.casefold() == target.casefold() for char in subject)
    noun = "letter" if target.isalpha() else "character"
    fact = f"the {noun} '{target}' occurs {_plural(count, 'time')} in '{subject}'"
    if counting:
        return _sentence(fact)
    return f"{'Yes' if count else 'No'}, {fact}."


def _length(subject: str, rest: str) -> str | None:
    match = _LENGTH.search(rest)
    if match is None:
        return None
    if re.search(r"\bchar", match.group(), re.IGNORECASE):
        return _sentence(f"{_named(subject)} has {_plural(len(subject), 'character')}")
    letters = sum(char.isalpha() for char in subject)
    unless = "" if letters == len(subject) else ", not counting spaces or punctuation"
    return _sentence(f"{_named(subject)} has {_plural(letters, 'letter')}{unless}")


def _spelling(subject: str, rest: str) -> str | None:
    if not re.search(r"\bspel|\bletter\s+by\s+letter\b", rest, re.IGNORECASE):
        return None
    return f"'{subject}' is spelled {'-'.join(_letters(subject))}."


_Answer = Callable[[str, str], str | None]
# The first that answers wins: the more specific questions come first ("spell backwards" is a
# reversal, not a spelling; "how many times does the letter r" is a count, not a length). Each
# answer names the words it reads, so that `reading.require_whole` can see what was left unread.
_ANSWERS: tuple[tuple[_Answer, tuple[re.Pattern[str], ...]], ...] = (
    (_palindrome, (_PALINDROME,)),
    (_reverse, (re.compile(r"\bbackwards?\b|\breverse[ds]?\b|\breversing\b|\bspel\w*", re.I),)),
    (_prefix, (_PREFIX,)),
    (_position, (_NTH,)),
    (_most_common, (re.compile(r"\bmost\s+(?:common|frequent|often|repeated)\b|\bmost\b", re.I),)),
    (_distinct, (re.compile(r"\b(?:different|distinct|unique)\s+(?:letters|characters)", re.I),)),
    (_vowels, (re.compile(r"\b(?:vowel|consonant)s?\b", re.I), _COUNT)),
    (_occurrences, (_COUNT, _CONTAIN, _QUOTED, *_TARGETS)),
    (_length, (_LENGTH,)),
    (_spelling, (re.compile(r"\bspel\w*|\bletter\s+by\s+letter\b", re.IGNORECASE),)),
)


def _spans(rest: str, patterns: tuple[re.Pattern[str], ...]) -> tuple[tuple[int, int], ...]:
    return tuple(match.span() for pattern in patterns for match in pattern.finditer(rest))


@dataclass(frozen=True)
class TextFacts:
    """The text-facts tool: finds the word in its argument and answers one exact fact about it,
    when that fact accounts for the whole question (`reading.require_whole`)."""

    name: str = "text"
    description: str = (
        "Exact facts about one word: how many times a letter occurs, how many letters or vowels, "
        "the n-th letter, the word backwards, or whether it is a palindrome. Give it the "
        "question with the word in quotes, e.g. How many r's are in 'strawberry'?"
    )

    def run(self, argument: str) -> ToolAnswer:
        if len(argument) > MAX_INPUT_CHARS:
            raise ToolError(f"input is longer than {MAX_INPUT_CHARS} characters")
        subject, start, end = find_subject(argument)
        rest = argument[:start] + _PLACEHOLDER + argument[end:]
        for answer, reads in _ANSWERS:
            found = answer(subject, rest)
            if found is not None:
                require_whole(Reading(rest.lower(), found, spans=_spans(rest, reads)))
                return _answered(found)
        if not rest.replace(_PLACEHOLDER, "").strip(" '\"‘’“”?.!"):
            # The argument is the bare word (a model's own argument): state what every answer uses.
            letters = _letters(subject)
            spelled = f"'{subject}' has {_plural(len(letters), 'letter')}: {'-'.join(letters)}."
            return _answered(spelled)
        raise ToolError(
            f"understood the word '{subject}' but not the question; ask how many times a letter "
            "occurs, how many letters or vowels it has, its n-th letter, its reverse, its "
            "spelling, or whether it is a palindrome"
        )


def _answered(sentence: str) -> ToolAnswer:
    return ToolAnswer(
        output=sentence,
        value=stated_value(sentence),
        provenance=f"parsed the whole question and found: {sentence}",
        fully_parsed=True,
    )
