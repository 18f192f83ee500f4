"""The form an answer to lettered options takes, as the question's own instructions ask for it.

A lettered block is answered with its letter ("B") unless an instruction around it asks for the
option's text: "Reply with the name of the metal, not the letter.", "… — write out the colour in
full rather than the letter." Held-out set 4 had two such questions read as letter questions, and
the engine then answers only in the form read. So an instruction about the form sets it, and one
that asks for both ("not just the letter") or names both without saying which is refused rather
than guessed.

Only instructions count: sentences or clauses that open with a verb of answering ("Answer …",
"Reply …", "Write …"). A question that mentions a name or a letter ("Which is the name of …?",
"Choose the word that …") asks about the options, not about the answer's form.

>>> answer_form("Which metal is liquid? Reply with the name of the metal, not the letter.", ())
'word'
>>> answer_form("Which is it? Answer with the letter only.", ())
'letter'
>>> answer_form("Which is it? Answer with the letter and the name.", ()) in ("letter", "word")
False
"""

import re
from collections.abc import Sequence
from typing import Literal

from engine.domain.sentences import words_of

__all__ = ["answer_form"]

_FILLERS = frozenset(words_of("please just now and then"))
_ANSWERING = frozenset(words_of("answer reply respond write give type say state output spell"))
# Where an instruction starts: a sentence, a line, a clause after a spaced dash or semicolon, or
# a verb of answering joined by "and" to the one before ("Pick the correct spelling and type the
# word itself, not the number: 1. …", held-out set 6). Whatever the list is marked with,
# letters, numbers or numerals, the instruction about the answer's form is the same.
_CLAUSES = re.compile(
    r"(?<=[.!?])\s+|\n|\s+[—–-]+\s+|;\s+"
    rf"|,?\s+and\s+(?=(?:then\s+)?(?:{'|'.join(sorted(_ANSWERING))})\b)",
    re.IGNORECASE,
)
# "not the letter", "rather than the letter", "instead of the number": the text is asked for.
_NOT_THE_LETTER = re.compile(
    r"\b(?:not|rather\s+than|instead\s+of)\s+(?:the\s+|a\s+|its\s+|their\s+|your\s+)?"
    r"(?:letter|number|numeral|label)s?\b",
    re.IGNORECASE,
)
# "not just the letter", "not only the letter": the letter and the text, which no option is.
_BOTH = re.compile(r"\bnot\s+(?:just|only)\b|\bas\s+well\s+as\b|\bletter\s+and\s+", re.IGNORECASE)
_THE_TEXT = re.compile(
    r"\bin\s+full\b|\b(?:write|spell)\s+(?:\w+\s+){0,2}?out\b|\bname\s+of\b|\bfull\s+name\b"
    r"|\bin\s+words\b|\bthe\s+(?:word|text|answer\s+text|option\s+text)\b"
    r"|\b(?:word|text|name|answer|option)\s+itself\b",
    re.IGNORECASE,
)
_THE_LETTER = re.compile(r"\b(?:letter|label|number|numeral)s?\b", re.IGNORECASE)


def answer_form(text: str, texts: Sequence[str]) -> Literal["letter", "word"] | str:
    """The form the instructions in `text` ask for ("letter" where none says), or why unsure.

    `texts` are the option texts: "Reply with the number." is no letter instruction when the
    options are numbers themselves.
    """
    asked: set[str] = set()
    for clause in _CLAUSES.split(text):
        words = [word for word in words_of(clause) if word not in _FILLERS]
        if clause.rstrip().endswith("?") or not words or words[0] not in _ANSWERING:
            continue
        if _BOTH.search(clause):
            return f"the instruction asks for the letter and for the text: {clause.strip()!r:.80}"
        kept = _NOT_THE_LETTER.sub(" ", clause)
        if kept != clause or _THE_TEXT.search(kept):
            asked.add("word")
        letter = _THE_LETTER.search(kept)
        if letter and not (letter.group(0).startswith("number") and _all_numbers(texts)):
            asked.add("letter")
        elif letter:
            return f"'{letter.group(0)}' may be the label or the option: {clause.strip()!r:.80}"
        named = False if asked else _named_object(clause)
        if named is None:
            return f"the instruction's form is not understood: {clause.strip()!r:.80}"
        asked |= {"word"} if named else set()
        if len(asked) > 1:
            return f"the instruction asks for the letter and for the text: {clause.strip()!r:.80}"
    return "word" if asked == {"word"} else "letter"


# What an instruction gives, after its verb ("Write the country name.", "Answer with the best
# option."): up to the first mark or a word that opens a phrase about something else.
_OBJECT = re.compile(
    r"^\W*(?:\w+\s+)*?(?:answer|reply|respond|write|give|type|say|state|output|spell)\b"
    r"(?:\s+(?:out|down|back)\b)?(?:\s+(?:with|using|w)\b)?\s*(?P<object>[^,:;.!?()\[\]{}\n]*)",
    re.I,
)
_OBJECT_ENDS = frozenset(words_of("of for to from by about on at if that which who and or so then"))
# Words that say which one is meant but not in which form: "the best option", "your answer".
_NEUTRAL = frozenset(
    words_of(
        "the a an your its their my our one single only just exactly correct right best final "
        "chosen following below here now answer answers choice choices option options response "
        "question questions item it this that me us clearly carefully honestly"
    )
)
_MANNER = frozenset(words_of("in as like why how whether when where what"))


def _named_object(clause: str) -> bool | None:
    """Whether an instruction that names no letter and no text by the usual words names some
    other thing to give ("Write the country name.", "Type the colour."), which only an
    option's text is; False where it names only the answer ("Answer the question."); None
    where its object is a manner or a clause ("Answer in English.", "Say why."), which no
    form of an option answers, so the reading refuses rather than guesses."""
    found = _OBJECT.match(clause)
    words = words_of(found.group("object")) if found else []
    if words[:1] and words[0] in _MANNER:
        return None
    head: list[str] = []
    for word in words:
        if word in _OBJECT_ENDS:
            break
        head.append(word)
    # A list of labels ("Answer A, B or C") names the letters; "A" folds to the article.
    return any(word not in _NEUTRAL and not word.isdigit() for word in head)


def _all_numbers(texts: Sequence[str]) -> bool:
    return bool(texts) and all(re.fullmatch(r"[-+]?[\d.,]+%?", text.strip()) for text in texts)
