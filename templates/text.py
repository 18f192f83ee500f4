"""What stored text may hold: nothing invisible, nothing that reorders what a reader sees.

A template's prompt steers every answer it is chosen for, and its name, description and a
retirement's reason are what people read to judge it. Characters that draw nothing let text say
one thing to a reader and another to the model: zero-width spaces and joiners, Unicode tag
characters (U+E0000 to U+E007F, which spell ASCII invisibly: "ASCII smuggling"), variation
selectors (256 of them, enough to hide a byte each), bidirectional controls that reorder a line
("Trojan Source"), and letters that draw nothing (the Hangul fillers). `hidden_character`
finds the first of them, by Unicode general category where one exists (every format character,
Cf; private use, Co; surrogates, Cs; unassigned code points, Cn) and by a short named list
otherwise.

Template names must also not look like another name: a name is printable ASCII
(`check_name`). A Cyrillic "і" (U+0456) in "Dіrect" made a second "Direct"; mixed-script rules
would still let a whole name be written in look-alike Cyrillic letters, while ASCII leaves only
the look-alikes within it ("l" and "I"), which the template's id (an ASCII slug, shown beside
its name) tells apart. Text in other languages belongs in the description and the prompt.

>>> hidden_character("safe text\\twith a tab\\nand a line")
>>> hidden_character("zero\\u200bwidth")
'U+200B (ZERO WIDTH SPACE)'
>>> hidden_character("tag \\U000e0041")
'U+E0041 (TAG LATIN CAPITAL LETTER A)'
>>> hidden_character("bell \\x07")
'U+0007 (a control character)'
"""

import unicodedata

__all__ = ["check_name", "check_visible", "hidden_character"]

_HIDDEN_CATEGORIES = frozenset({"Cf", "Co", "Cs", "Cn"})
_UNNAMED = {
    "Cc": "a control character",
    "Co": "a private-use character",
    "Cs": "a lone surrogate",
    "Cn": "an unassigned code point",
}
_ALLOWED_CONTROLS = frozenset("\n\t")
# Not format characters, yet they draw nothing: the combining grapheme joiner, the Mongolian
# free variation selectors, the variation selectors and the Hangul fillers.
_INVISIBLE_RANGES = (
    (0x034F, 0x034F),
    (0x180B, 0x180F),
    (0xFE00, 0xFE0F),
    (0xE0100, 0xE01EF),
    (0x115F, 0x1160),
    (0x3164, 0x3164),
    (0xFFA0, 0xFFA0),
)


def _is_hidden(char: str) -> bool:
    category = unicodedata.category(char)
    if category in _HIDDEN_CATEGORIES:
        return True
    if category == "Cc":
        return char not in _ALLOWED_CONTROLS
    code = ord(char)
    return any(low <= code <= high for low, high in _INVISIBLE_RANGES)


def hidden_character(text: str) -> str | None:
    """The first character of `text` that hides or reorders text, named; None if there is none."""
    for char in text:
        if _is_hidden(char):
            name = unicodedata.name(char, "") or _UNNAMED.get(unicodedata.category(char), "?")
            return f"U+{ord(char):04X} ({name})"
    return None


def check_visible(text: str) -> str:
    """`text` unchanged, or ValueError naming the invisible or reordering character in it."""
    found = hidden_character(text)
    if found is not None:
        raise ValueError(f"contains {found}, a character that hides or reorders text; remove it")
    return text


def check_name(name: str) -> str:
    """`name` unchanged if it is printable ASCII, else ValueError naming the first other letter.

    >>> check_name("First principles (v2)")
    'First principles (v2)'
    >>> check_name("D\\u0456rect")
    Traceback (most recent call last):
    ...
    ValueError: contains U+0456 (CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I): a template \
name is printable ASCII, so that no name can pass for another (write other languages in the \
description)
    """
    for char in name:
        if not (char.isascii() and char.isprintable()):
            raise ValueError(
                f"contains U+{ord(char):04X} ({unicodedata.name(char, 'unnamed')}): a template "
                "name is printable ASCII, so that no name can pass for another (write other "
                "languages in the description)"
            )
    return name
