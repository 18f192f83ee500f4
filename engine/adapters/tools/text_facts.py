"""Exact facts about one word or short phrase, which small models get wrong: they see tokens.

The subject is found by `subject.find_subject`; in a quoted phrase, the question may select its
longest, shortest or n-th word (`phrase_part`). The question is read from cue words: how many
times a letter occurs (or whether it occurs at all), how many letters, characters, vowels (a, e,
i, o, u), consonants or different letters it has, the n-th letter (also "starts with", "ends
with", "the first three letters"), the most common letter, the word backwards or spelled out, and
whether it is a palindrome. Counting is case-insensitive: 'R' and 'r' are one letter. Positions
and reversals keep the case as written. A question it cannot read is refused, naming what it
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
from typing import ClassVar

from engine.adapters.tools.answer_line import stated_value
from engine.adapters.tools.ordinals import (
    COUNT_WORDS,
    ORDINAL,
    count_value,
    ordinal_name,
    ordinal_value,
)
from engine.adapters.tools.phrase_part import (
    PLACEHOLDER,
    SELECTS_PART,
    WORDS,
    asks_for_the_part,
    select_part,
    stated,
)
from engine.adapters.tools.reading import Reading, require_whole
from engine.adapters.tools.subject import QUOTED, WORD, find_subject
from engine.domain.records import ToolAnswer
from engine.errors import ToolError, ToolRefusalError

__all__ = ["MAX_INPUT_CHARS", "TextFacts"]

MAX_INPUT_CHARS = 200
VOWELS = "aeiou"  # y is a consonant here: "rhythm" has no vowels, as school exercises count it

# "the word X", "the phrase: X": naming the subject, read with it.
_NAMING = re.compile(r"\b(?:the\s+)?(?:word|name|phrase|string|term)\s*:?\s*_subject_", re.I)
_QUOTES = "'\"‘“"
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


def _target(rest: str) -> str | None:
    """The single character the question asks about, if any: 'r', the letter r, r's, many rs."""
    for match in QUOTED.finditer(rest):
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
    (_occurrences, (_COUNT, _CONTAIN, QUOTED, *_TARGETS)),
    (_length, (_LENGTH,)),
    (_spelling, (re.compile(r"\bspel\w*|\bletter\s+by\s+letter\b", re.IGNORECASE),)),
)


def _spans(rest: str, patterns: tuple[re.Pattern[str], ...]) -> tuple[tuple[int, int], ...]:
    return tuple(match.span() for pattern in patterns for match in pattern.finditer(rest))


@dataclass(frozen=True)
class TextFacts:
    """The text-facts tool: finds the word in its argument and answers one exact fact about it,
    when that fact accounts for the whole question (`reading.require_whole`)."""

    # Pure computation on at most `MAX_INPUT_CHARS` characters: run on the caller's thread
    # (`engine.adapters.tools.registry`).
    inline: ClassVar[bool] = True
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
        rest = argument[:start] + PLACEHOLDER + argument[end:]
        # Only a quoted phrase has parts to select: an unquoted subject is one word of the question.
        part = select_part(subject, rest) if argument[start] in _QUOTES else None
        if part is None:
            return _answered(_fact(subject, rest))
        if asks_for_the_part(part):
            if len(part.words) > 1:
                raise ToolRefusalError(f"{stated(part)}: no one word is the answer")
            return _answered(f"{stated(part)}.", value=part.words[0])
        facts = [_fact(word, part.rest) for word in part.words]
        values = {stated_value(fact) for fact in facts}
        if len(values) > 1:
            raise ToolRefusalError(f"{stated(part)}, and they give different answers")
        return _answered(f"{stated(part)}. {facts[0]}", value=values.pop())


def _fact(subject: str, rest: str) -> str:
    """The one fact `rest` (the question around the placeholder) asks about `subject`, read whole.

    Besides `reading.require_whole`, a word that selects a part of the subject ("longest",
    "second", "word" said of a phrase) must have been read: answered about the whole subject, "the
    longest word in 'the quick brown fox'" once had 16 letters.
    """
    for answer, reads in _ANSWERS:
        found = answer(subject, rest)
        if found is None:
            continue
        spans = (*_spans(rest, reads), *_spans(rest, (_NAMING,)))
        reading = require_whole(Reading(rest.lower(), found, spans=spans))
        selecting = reading.unread(SELECTS_PART)
        if len(re.findall(WORD, subject)) > 1:
            selecting += reading.unread(WORDS)
        if selecting:
            shown = ", ".join(repr(word) for word in dict.fromkeys(selecting))
            raise ToolRefusalError(
                f"refused: {shown} select a part of '{subject}', which was not read "
                f"(understood only {found!r})"
            )
        return found
    if not rest.replace(PLACEHOLDER, "").strip(" '\"‘’“”?.!"):
        # The argument is the bare word (a model's own argument): state what every answer uses.
        letters = _letters(subject)
        return f"'{subject}' has {_plural(len(letters), 'letter')}: {'-'.join(letters)}."
    raise ToolError(
        f"understood the word '{subject}' but not the question; ask how many times a letter "
        "occurs, how many letters or vowels it has, its n-th letter, its reverse, its "
        "spelling, or whether it is a palindrome"
    )


def _answered(sentence: str, value: str | None = None) -> ToolAnswer:
    return ToolAnswer(
        output=sentence,
        value=stated_value(sentence) if value is None else value,
        provenance=f"parsed the whole question and found: {sentence}",
        fully_parsed=True,
    )
