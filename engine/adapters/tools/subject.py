"""The word or phrase a question is about, quoted or not, and where it stands in the question.

The subject is the quoted word ('...', "...", ‘...’ or “...”), else the word after "the word",
"spell", "reverse", "does", "in" or "of". The text tool reads the question around it.
"""

import re

from engine.errors import ToolError

__all__ = ["QUOTED", "WORD", "find_subject"]

# A word: letters or digits, with inner hyphens or apostrophes ("don't", "well-known").
WORD = r"[^\W_]+(?:[-'’][^\W_]+)*"
QUOTED = re.compile(r"(?<!\w)'(.+?)'(?!\w)|(?<!\w)\"(.+?)\"(?!\w)|‘(.+?)’(?!\w)|“(.+?)”")
_NAMED_BEFORE = re.compile(r"\b(?:word|name|phrase|string)\s*$", re.IGNORECASE)
_BEFORE_SUBJECT = re.compile(
    r"\b(?:word|name|phrase|string|in|of|spell|reverse)\s*$", re.IGNORECASE
)
# Where an unquoted subject is, most specific first; the last pattern takes its last match.
_UNQUOTED = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        rf"\bthe\s+(?:word|name|phrase|string|term)\s+({WORD})",
        rf"\bis\s+({WORD})\s+an?\s+palindrome",
        rf"\b({WORD})\s+(?:spel(?:led|t)\s+)?(?:backwards?|in\s+reverse|reversed)\b",
        rf"\b(?:spell(?:ed)?(?:\s+out)?|reverse|write)\s+({WORD})",
        rf"\bdoes\s+({WORD})\s+(?:have|contain|include|start|begin|end)",
        rf"\bhow\s+long\s+is\s+({WORD})",
        rf"\b(?:in|of)\s+({WORD})",
    )
)
_BARE = re.compile(rf"\s*({WORD})\s*[?.!]?\s*")  # the argument is the word alone
# Words that follow "in", "of" or "spell" without being the subject ("in the alphabet", "spell it").
_NOT_SUBJECTS = frozenset((
    "a", "an", "the", "it", "its", "it's", "this", "that", "these", "those", "there", "here",
    "what", "which", "how", "is", "are", "me", "my", "your", "his", "her", "their", "all",
    "word", "words", "letter", "letters", "character", "characters", "vowel", "vowels",
    "consonant", "consonants", "total", "order", "reverse", "backwards", "backward", "out",
    "alphabet", "english", "spelled", "spelt",
))  # fmt: skip


def find_subject(text: str) -> tuple[str, int, int]:
    """The word the question is about, and the span it (with its quotes) takes in `text`.

    >>> find_subject("How many r's are in strawberry?")
    ('strawberry', 20, 30)
    >>> find_subject("Is 'level' a palindrome?")[0]
    'level'
    """
    quoted = [
        (next(group for group in match.groups() if group is not None), *match.span())
        for match in QUOTED.finditer(text)
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
