"""The one word of a quoted phrase a question is about: its longest, shortest or n-th word.

"How many letters does the longest word in 'the quick brown fox' have?" asks about 'quick' or
'brown', not the phrase: answered about the whole phrase it said 16. The text tool reads the
selecting phrase here, answers about the word it selects, and says which word that was. What it
cannot select it must not answer: `SELECTS_PART` finds the words that select a part ("longest",
"word", "second", ...) so that a question leaving one of them unread is refused.

Ties: several words may be the longest. A question about "the longest word" is answered only when
every tied word gives the same answer ("how many letters" does; "which word" does not).

>>> part = select_part("the quick brown fox", "What is the last word of" + PLACEHOLDER + "?")
>>> part.words, part.said, part.rest
(('fox',), "the last word of 'the quick brown fox'", 'What is _subject_ ?')
"""

import re
from dataclasses import dataclass

from engine.adapters.tools.ordinals import ORDINAL, ordinal_name, ordinal_value
from engine.errors import ToolRefusalError

__all__ = [
    "PLACEHOLDER",
    "SELECTS_PART",
    "WORDS",
    "Part",
    "asks_for_the_part",
    "select_part",
    "stated",
]

# Where the subject stood in the question; the tools read the rest of the question around it.
PLACEHOLDER = " _subject_ "
_HERE = r"\s*_subject_\s*"
_WORD = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*")
_LONG = r"longest|biggest|largest"
_SHORT = r"shortest|smallest"
_OF = r"(?:in|of|from)\s+(?:the\s+(?:phrase|sentence|string|words)\s*)?"
# "the longest word in X", "the 2nd word of X", "which word in X is the shortest".
_SELECTOR = re.compile(
    rf"\b(?:the\s+)?(?P<which>{_LONG}|{_SHORT}|{ORDINAL})\s+word\s+{_OF}{_HERE}"
    rf"|\bwhich\s+word\s+{_OF}{_HERE}(?:is|comes)\s+(?:the\s+)?(?P<superlative>{_LONG}|{_SHORT})\b",
    re.IGNORECASE,
)
# Words that select a part of the subject, which a reading must consume or refuse: a superlative
# (its English shape: "-est", "most", "least"), an ordinal, or "word(s)" said of a phrase.
SELECTS_PART = re.compile(rf"\b[a-z]{{3,}}est\b|\bmost\b|\bleast\b|\b{ORDINAL}\b", re.IGNORECASE)
WORDS = re.compile(r"\bwords?\b", re.IGNORECASE)
# The question asks for the selected word itself: "What is the longest word in X?", "Which word
# in X is the shortest?", "Find the third word of X".
_FOR_IT = re.compile(
    rf"\s*(?:(?:what|which)(?:\s+is|'s)?|name|find|give(?:\s+me)?|tell\s+me|say)?{_HERE}[?.!]*\s*",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Part:
    """The word(s) a selector picks (several when tied), how to say so, and the question left."""

    words: tuple[str, ...]
    said: str  # "the longest word of 'the quick brown fox'"
    rest: str  # the question with the selector replaced by the placeholder


def select_part(phrase: str, rest: str) -> Part | None:
    """The part of `phrase` that `rest` (the question around `PLACEHOLDER`) selects, if any.

    `ToolRefusalError` when the selected word does not exist ("the fifth word" of three).
    """
    match = _SELECTOR.search(rest)
    if match is None:
        return None
    words = _WORD.findall(phrase)
    if not words:
        raise ToolRefusalError(f"'{phrase}' has no words")
    which = (match["which"] or match["superlative"]).lower()
    if re.fullmatch(_LONG, which) or re.fullmatch(_SHORT, which):
        chosen = _extreme(words, longest=bool(re.fullmatch(_LONG, which)))
        named = which
    else:
        index = ordinal_value(which)
        if index == 0 or abs(index) > len(words):
            raise ToolRefusalError(f"'{phrase}' has {len(words)} words, no {which} word")
        chosen = (words[index - 1] if index > 0 else words[index],)
        named = ordinal_name(index)
    left = rest[: match.start()] + PLACEHOLDER + rest[match.end() :]
    return Part(chosen, f"the {named} word of '{phrase}'", re.sub(r"\s+", " ", left).strip())


def _extreme(words: list[str], *, longest: bool) -> tuple[str, ...]:
    """The longest (or shortest) words by letters, each spelling once, in the phrase's order."""
    sizes = [sum(char.isalpha() for char in word) for word in words]
    best = max(sizes) if longest else min(sizes)
    tied = [word for word, size in zip(words, sizes, strict=True) if size == best]
    return tuple(dict.fromkeys(tied))


def asks_for_the_part(part: Part) -> bool:
    """Whether the question asks for the selected word itself, and nothing else about it."""
    return _FOR_IT.fullmatch(part.rest) is not None


def stated(part: Part) -> str:
    """How the selection reads in a sentence: "The longest word of X is 'a'" or "... are ..."."""
    quoted = [f"'{word}'" for word in part.words]
    if len(quoted) == 1:
        return f"{part.said[0].upper()}{part.said[1:]} is {quoted[0]}"
    listed = ", ".join(quoted[:-1]) + " and " + quoted[-1]
    plural = part.said.replace(" word of ", " words of ", 1)
    return f"{plural[0].upper()}{plural[1:]} are {listed} (tied)"
