"""Whether the asker's words are written in English, for the readings that parse English grammar.

A yes/no question and "X or Y" alternatives are read from English grammar: an auxiliary that
opens the question, "or" between alike phrases, English closed classes (`engine.domain.sentences`).
Text in another language can look the same to that grammar: German "Was ist der Unterschied
…?" opens with the English auxiliary "was" (held-out set 8 read it as a yes/no question), Dutch
"Is het …?" with "is". A lettered block is different: its letters are the structure, in any
language, so only the grammar readers ask this module.

The signal is the writing system, not a list of foreign words. The readers tokenise on the
English alphabet (`words_of` keeps a-z and digits), so a letter outside it ("für", "è", "ñ") is
a part of the text the grammar cannot even see whole, and punctuation that English never uses
("¿", "¡", the low quotation mark „ and guillemets «») marks another language's sentence. Under
the frame's rule, what the reader cannot account for refuses. The option texts themselves and
material quoted in English quotation marks are left out: "a jalapeño" is an alternative, and
'Is "Schadenfreude" a German word?' asks in English about a quoted word.

A word-list test was weighed and not used: the only offline English list in the environment
(quantulum3's 10,000 commonest web words) holds "ist", "der" and "und" and lacks "leap", "gram"
and "emu", so on the eight held-out sets it would cost right readings without catching the
German question. Non-English text in plain ASCII ("Is het weer mooi?") is still read; that is
the known gap of this signal.

>>> not_english("Was ist der Unterschied zwischen „seit“ und „für“?", ())
"written in another language: '„'"
>>> not_english("Which is the hottest: a jalapeño or a habanero?", ("a jalapeño", "a habanero"))
"""

import re
from collections.abc import Sequence

__all__ = ["not_english"]

# Marks of other languages' sentences: Spanish opening marks, low and angled quotation marks.
_FOREIGN_MARKS = frozenset("¿¡„‚«»‹›")
# Material in English quotation marks is about something, in whatever language it is written.
_QUOTED = re.compile(r"\"[^\"\n]*\"|“[^”„]*”|‘[^’\n]*’|(?<!\w)'[^'\n]*'(?!\w)")


def not_english(text: str, texts: Sequence[str]) -> str | None:
    """Why the asker's words in `text` (option `texts` and quoted material aside) are not
    English, or None."""
    asked = text
    for option in sorted(texts, key=len, reverse=True):
        asked = asked.replace(option, " ")
    asked = _QUOTED.sub(" ", asked)
    mark = next(
        (c for c in asked if c in _FOREIGN_MARKS or (c.isalpha() and not c.isascii())), None
    )
    return f"written in another language: {mark!r}" if mark else None
