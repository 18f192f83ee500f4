"""Answer spaces a question names in a sentence of its own: "Answer plausible or implausible.",
"Answer yes, no, or maybe.", "Answer with 'entailment', 'neutral', or 'contradiction'.",
"Choose from: Rust, Go, C++", and the letters of an option block: "Answer A, B or C.".

Issue 39 found these unread: the named answer spaces were two fixed pairs (true/false,
yes/no), so "Answer plausible or implausible." was free text. Here the sentence is parsed
whole by one small grammar, not matched by cue phrases:

    sentence := [please] VERB FILLER* [":"] LIST ["only"] END
    VERB     := answer | reply | respond | choose | pick | select
    FILLER   := with | only | just | either | from | using | one of | the word(s) | ...
    LIST     := ITEM ("," ITEM)* [","] ("or" | "/") ITEM       (a "from:" list needs no "or")
    ITEM     := a quoted text, or one to three words of no closed class
    END      := "." | "!" | ":" | the end of the text

The sentence must start a text or follow a sentence's end, and every word of it must be
accounted for: "Please reply in English or Spanish: …" has "in English" where a list must
stand, and "Write a function that returns 'yes' or 'no'." has another verb. A list of bare
letters ("Answer A, B or C.") names the labels of an option block and is read by
`letters_named`, which takes the sentence out so that the block is read without it.

>>> read_answer_list("Is the sentence plausible? Answer plausible or implausible.").texts
('plausible', 'implausible')
>>> read_answer_list("Please reply in English or Spanish: what is your favourite season?")
>>> letters_named("Which is prime? (A) 21 (B) 23 Answer A or B.")
('Which is prime? (A) 21 (B) 23', ('A', 'B'))
"""

import re

from engine.domain.option_blocks import MAX_OPTIONS, OptionBlock
from engine.domain.option_texts import all_differ, names_labels, unquoted
from engine.domain.sentences import AUXILIARIES, WH_WORDS, first_word, words_of

__all__ = ["letters_named", "read_answer_list"]

_WORD = r"[\w+#-]+(?:\.[\w+#-]+)*"  # "C++", "node.js", "e-mail"; a final "." ends the sentence
_ITEM = (
    r"(?:\"[^\"\n]{1,40}\"|'[^'\n]{1,40}'|“[^”\n]{1,40}”|‘[^’\n]{1,40}’"
    rf"|{_WORD}(?:[ \t]{_WORD}){{0,2}})"
)
_JOIN = r"(?:\s*,\s*(?:or\s+|and\s+)?|\s+or\s+|\s*/\s*)"
_SENTENCE = re.compile(
    # after a sentence's end, or where a capital opens it after an option ("(D) 27 Answer A-D")
    r"(?:^|(?<=[.!?:\n])\s+|(?<=[.!?:][\"'”’)])\s+|\s+(?=(?-i:[A-Z])))"
    r"(?P<sentence>(?:please\s+)?(?P<verb>answer|reply|respond|choose|pick|select)\b"
    r"(?P<filler>(?:\s+(?:with|only|just|either|from|using|one\s+of|exactly|simply|by\s+saying"
    r"|the\s+words?|the\s+labels?|a\s+single\s+word|one\s+word|(?:the\s+)?following))*,?)"
    rf"(?P<colon>\s*:)?\s+(?P<listed>{_ITEM}(?:{_JOIN}{_ITEM})+?)"
    r"(?:\s*,?\s+only)?[ \t]*(?P<end>[.!:]|$|(?=\n)))",
    re.IGNORECASE,
)
_SPLIT = re.compile(_JOIN, re.IGNORECASE)
_ITEM_WORDS = 3
_NAMED_PAIRS = (
    frozenset({"yes", "no"}),
    frozenset({"true", "false"}),
    frozenset({"y", "n"}),
    frozenset({"t", "f"}),
)


def _pair(items: list[str]) -> frozenset[str]:
    return frozenset(item.casefold() for item in items)


# Words that end an item's phrase only inside a sentence: an item is a label, never "is" or "to".
_NOT_AN_ITEM = WH_WORDS | AUXILIARIES | frozenset(words_of("in to the a an this that it"))


def _named(text: str) -> tuple[re.Match[str], list[str]] | None:
    """The one answer-list sentence of `text` and its items, or None."""
    found = []
    for match in _SENTENCE.finditer(text):
        listed = match.group("listed")
        items = [unquoted(item.strip()) for item in _SPLIT.split(listed)]
        if items and items[-1].casefold().endswith(" only"):
            items[-1] = items[-1][: -len(" only")].rstrip()  # "Yes or No only": not the item's
        joined_by_or = re.search(r"\bor\b|/", listed, re.IGNORECASE)
        if len(re.findall(r"\bor\b", listed, re.IGNORECASE)) > 1:
            continue  # "Answer yes or no, true or false": two lists, not one
        if not joined_by_or and not (match.group("colon") or "from" in match.group("filler")):
            continue  # "Answer the questions, then …": a list must be joined as a choice
        if any(
            not item
            or len(item.split()) > _ITEM_WORDS
            or (len(item) > 1 and first_word(item) in _NOT_AN_ITEM)
            for item in items
        ):
            continue
        found.append((match, items))
    return found[0] if len(found) == 1 else None


def read_answer_list(text: str) -> OptionBlock | str | None:
    """The options a sentence names as the answers, where it names words, not letters."""
    named = _named(text)
    if named is None:
        return None
    match, items = named
    if names_labels(items) or _pair(items) in _NAMED_PAIRS:
        # "Answer A, B or C.": the labels of a block (`letters_named`); "Answer yes or no.":
        # a named two-way space, read as "Yes"/"No" by `options._read_named`.
        return None
    if not all_differ(items) or len(items) > MAX_OPTIONS:
        return f"the answers named in {match.group('sentence')!r:.60} repeat or are too many"
    rest = text[: match.start("sentence")] + " " + text[match.end("sentence") :]
    if len(words_of(rest)) < 3:
        return f"{match.group('sentence')!r:.60} names the answers, but asks nothing to answer"
    understood = f"{len(items)} answers named: {match.group('sentence').strip()!r:.60}"
    # The sentence is an instruction of answering, wherever it stands; the rest must hold the
    # question (or the material) it answers, which `option_frame` accounts for.
    return OptionBlock(tuple(items), (), text, understood, head=rest, tail="")


def letters_named(text: str) -> tuple[str, tuple[str, ...]] | None:
    """`text` without a sentence that names the letters to answer with ("Answer A, B or C."),
    and those letters; None where it has no such sentence."""
    named = _named(text)
    if named is None:
        return None
    match, items = named
    if not names_labels(items) or _pair(items) in _NAMED_PAIRS:
        return None  # "Reply Y or N." is yes or no, not letters
    rest = (text[: match.start("sentence")].rstrip() + " " + text[match.end("sentence") :]).strip()
    return rest, tuple(item.strip("()[].").upper() for item in items)
