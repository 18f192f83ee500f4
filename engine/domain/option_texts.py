"""An option's text as written, without the punctuation and quotation marks of the list.

Shared by the option readers (`engine.domain.option_blocks`, `engine.domain.option_lists`,
`engine.domain.option_questions`). The held-out sets keep an option's text verbatim but for
quotation marks around the whole of it and one final "." (tests/data/README.md); what a list
adds between its options ("Mars, or", "Venus;") is the list's, not the option's.
"""

import re

__all__ = ["all_differ", "names_labels", "option_key", "option_texts", "unquoted"]

_CONNECTOR = re.compile(r"(?:[,;]\s*|\s+)(?:or|and)$|[,;]$")
_ABBREVIATION = re.compile(r"(?:\b\w\.)+$")
_QUOTES = {'"': '"', "'": "'", "“": "”", "‘": "’"}


def option_key(text: str) -> str:
    """How two options compare: case and spacing do not tell them apart ("Yes", " yes ")."""
    return " ".join(text.casefold().split())


def all_differ(texts: "list[str] | tuple[str, ...]") -> bool:
    """Whether no two of `texts` are the same option (`option_key`)."""
    return len({option_key(text) for text in texts}) == len(texts)


# A label of an option: a letter or a roman numeral, perhaps in brackets ("C", "(d)", "ii").
_LABEL = re.compile(r"[(\[]?(?:[A-Za-z]|[ivx]{2,4}|[IVX]{2,4})[)\].]?")


def names_labels(texts: "list[str] | tuple[str, ...]") -> bool:
    """Whether every text is a bare label ("A", "B", "C"): the labels of options named, not
    options given, as in "Pick one: A, B, C or D. Which organelle …?" with none written out.

    A label inside a phrase ("the letter e", "vitamin C") is an option's own text, and numbers
    are values: "Which is larger, 2 or 3?".
    """
    return all(_LABEL.fullmatch(text.strip()) for text in texts)


def unquoted(text: str) -> str:
    """`text` without quotation marks around the whole of it: '"less people"' -> 'less people'.

    Quotes that open and close inside ('"yes" and "no"') stay: they are not around the whole.
    """
    closing = _QUOTES.get(text[:1])
    inner = text[1:-1]
    if closing is None or len(text) < 3 or not text.endswith(closing):
        return text
    if (closing == '"' and '"' in inner) or (closing == "”" and "“" in inner):
        return text
    return inner.strip()


def option_texts(raw: list[str]) -> list[str]:
    """The options' texts, each without the list's own punctuation.

    A comma or semicolon after an option separates it from the next ("(A) Mars, (B) Venus; or
    (C) Earth"), so the last option, with none after it, has none. Where every option, the last
    too, ends with the same one, the mark is the options' own: a statement of code or a formula
    ("A) SELECT * FROM t;"), kept as written, since only one final "." is the list's.
    """
    spaced = [" ".join(option.split()) for option in raw]
    own = {option[-1:] for option in spaced}
    kept = own.pop() if len(own) == 1 and own <= {";", ","} and len(spaced) > 1 else ""
    return [_option_text(option[: len(option) - len(kept)]) + kept for option in spaced]


def _option_text(raw: str) -> str:
    """An option's text without the list's own punctuation: "Mars, or" -> "Mars"."""
    text = _CONNECTOR.sub("", " ".join(raw.split())).strip()
    if unquoted(text) != text:
        return unquoted(text)  # a quoted sentence keeps its own point: "'Who's there?'"
    if text.endswith("?") or (text.endswith(".") and not _ABBREVIATION.search(text)):
        text = text[:-1].rstrip()
    return text
