"""Options written as a list in a sentence: "X, Y or Z", after a header or an instruction.

The list half of `engine.domain.options` (which holds the rest and the why). Two readers find a
list that the question itself names as its answer space, so that what follows it is material:

- after a header that says it lists the choices: "Options: positive, negative", "Pick one:
  green, purple, orange.", "Route this request to one of: HR, IT, Facilities.";
- after an instruction to put one thing in one class: "Classify this ticket as billing,
  technical or other: …";
- in brackets after a short label that asks for the answer: "Sentiment (positive, negative or
  neutral)?", "Category (Billing / Shipping / Other):".

A list to sort, rank or translate, or several things to classify ("Classify these animals as …")
is material, not a choice, and is left alone.
"""

import re
from dataclasses import replace

from engine.domain.option_blocks import MAX_OPTIONS, BlockReading, OptionBlock
from engine.domain.option_texts import all_differ, names_labels, unquoted
from engine.domain.sentences import AUXILIARIES, WH_WORDS, first_word, words_of

__all__ = [
    "list_items",
    "read_bracketed",
    "read_bracketed_labels",
    "read_classifying",
    "read_listed_choices",
    "unenclosed",
]

# Items are split at ", ", ", or " and " or ": "1,000 or 999" holds two, not three.
_LIST_SPLIT = re.compile(r"\s*,\s+(?:or\s+)?|\s+or\s+")
_ITEM_WORDS = 8
# A label is a word or a short phrase ("Office Supplies", "not spam"); longer items are prose.
_LABEL_WORDS = 3


def list_items(listed: str, *, needs_or: bool = True) -> list[str] | str:
    """The items of "X or Y", "X, Y, or Z", "X, Y or Z"; or why it is not such a list.

    `needs_or`: "or" must join the last two, as in prose; a header's list ("Options: a, b")
    may do without.
    """
    separators = _LIST_SPLIT.findall(listed)
    # Quotes around each alternative ('"fewer" or "less"') are the asker's, not the option's.
    items = [unquoted(item.strip()) for item in _LIST_SPLIT.split(listed)]
    if not separators or (needs_or and not re.search(r"\bor\b", separators[-1])):
        return f"'or' does not join the last two alternatives of {listed!r:.80}"
    if any(not item for item in items):
        return f"an alternative is empty in {listed!r:.80}"
    unbalanced = next((item for item in items if not _balanced(item)), None)
    if unbalanced is not None:
        # "[book_flight" is half of an enclosure around the whole list, never a label; a list
        # whose brackets `unenclosed` could not lift as a whole is refused, not read in pieces.
        return f"an unbalanced bracket in the alternative {unbalanced!r:.60}"
    # An article is no part of an alternative's length: "Canada or the United States".
    lengths = [len(re.sub(r"^(?:the|a|an)\s+", "", item, flags=re.I).split()) for item in items]
    if max(lengths) > _ITEM_WORDS or max(lengths) - min(lengths) > 1:
        # Unlike alternatives ("5" against "7 is prime" in "Which of 3, 5 or 7 is prime?") are a
        # sign that the list runs on into the sentence.
        return f"the alternatives in {listed!r:.80} are not alike in length"
    return items


# The brackets a whole list may be written in: "Labels: [a, b, c]", "one of: {x, y}".
_ENCLOSURES = {"[": "]", "(": ")", "{": "}", "<": ">"}


def unenclosed(listed: str) -> str:
    """`listed` without the one pair of brackets around all of it ("[a, b, c]" is "a, b, c");
    as it is otherwise, where `list_items` refuses an item with half a pair in it."""
    inner = listed.strip()
    closer = _ENCLOSURES.get(inner[:1])
    if closer and inner.endswith(closer) and _balanced(inner[1:-1]):
        return inner[1:-1].strip()
    return listed


def _balanced(text: str) -> bool:
    """Whether every bracket in `text` closes, in order: "(default)" does, "[a" does not."""
    open_brackets: list[str] = []
    for character in text:
        if character in _ENCLOSURES:
            open_brackets.append(_ENCLOSURES[character])
        elif character in _ENCLOSURES.values() and (
            not open_brackets or open_brackets.pop() != character
        ):
            return False
    return not open_brackets


# A header that says a list of choices follows: "Options:", "Labels:", "Pick one:", "… one of:",
# "… one of the following labels:". Then the list, which ends its line or its sentence.
_LISTED_CHOICES = re.compile(
    # after a sentence's end, a quoted sentence's too ("… 'How do I reset it?' Categories: …")
    r"(?:^|(?<=[.?!\n])\s*|(?<=[.?!][\"'”’])\s+)"
    r"(?P<header>(?:answer\s+)?(?:options|choices|labels|categories|classes)"
    r"|(?:[^.?!\n:]*\s)?(?:pick|choose|select)\s+one"
    r"|[^.?!\n:]*\bone\s+of(?:\s+the\s+following(?:\s+\w+)?)?)"
    r":[ \t]*(?P<listed>[^\n.?!]+?)[ \t]*(?:[.][ \t]*(?=\s|$)|\n|$)",
    re.IGNORECASE,
)

_MARKED = re.compile(r"[(\[]?[A-Za-z0-9]{1,2}[).:\]]\s")


def read_listed_choices(text: str) -> BlockReading:
    match = _LISTED_CHOICES.search(text)
    if match is None:
        return None
    listed = unenclosed(match.group("listed"))
    if " / " in listed and "," not in listed:
        listed = listed.replace(" / ", ", ")  # "Labels: relevant / irrelevant"
    items = list_items(listed, needs_or=False)
    if isinstance(items, str):
        # "Labels: [a, b" opens an enclosure round the list and never closes it; "Options
        # trading: what is a call option?" lists nothing.
        return _unclosed(listed)
    if any(_MARKED.match(item) for item in items):
        return None  # "Options: (A) Jupiter, (B) Saturn" is lettered (`read_lettered`)
    if any(len(item.split()) > _LABEL_WORDS for item in items):
        return f"the listed choices are prose, not labels: {items}"
    stem = (text[: match.start()] + " " + text[match.end() :]).strip()
    if not stem:
        return "listed choices with nothing to choose for"
    header = " ".join(match.group("header").split())
    return _around(
        _block(items, stem, f"{len(items)} choices listed after '{header}:'"), text, match
    )


def _unclosed(listed: str) -> str | None:
    """Why listed choices that are no list open a bracket round them they never close, or None:
    "A) x B) y" only closes letters' brackets, and is left to `read_lettered`."""
    if listed[:1] in _ENCLOSURES and not _MARKED.match(listed):
        return f"the listed choices open a bracket they do not close: {listed!r:.60}"
    return None


# "Classify this ticket as billing, technical or other: <the ticket>", or the thing named
# before the list and nothing after it ("Categorize the expense 'Taxi' as travel or meals.").
# The verb puts one thing
# in one class; "this"/"that"/"the <noun>" names one thing ("the following expense"), where
# "these", "each" or a plural noun ("the following sentences") names several.
_CLASSIFYING = re.compile(
    r"^(?:please\s+)?(?:classify|categori[sz]e|label|tag|rate|mark)\s+(?P<thing>[^:.?!\n]+?)"
    r"\s+as\s+(?P<listed>[^:.?!\n]+)(?::\s*\S|[.!]?\s*$)",
    re.IGNORECASE,
)
_ONE_THING = re.compile(
    r"(?:this|that|it|the\s+(?:following\s+)?(?!following\b)\w*[^s\W])\b.*", re.IGNORECASE
)
_SEVERAL = frozenset(words_of("these those each all every both them"))


def read_classifying(text: str) -> BlockReading:
    match = _CLASSIFYING.match(text)
    if match is None:
        return None
    thing = match.group("thing")
    if not _ONE_THING.fullmatch(thing) or _SEVERAL & set(words_of(thing)):
        return f"'{thing}' may be several things to classify, not one"
    items = list_items(unenclosed(match.group("listed")))
    if isinstance(items, str):
        return items
    if any(len(item.split()) > _LABEL_WORDS for item in items):
        return f"the classes are prose, not labels: {items}"
    block = _block(items, text, f"{len(items)} classes to put '{thing}' in")
    if not isinstance(block, OptionBlock):
        return block
    # The instruction is read whole here (verb, one thing, its classes); what the frame must
    # still account for is the material after its colon.
    return replace(block, head=text[match.end("listed") :].lstrip(" :"), tail="")


# A label opening a line, its list in brackets, then "?" or ":" and nothing more on the line but
# quoted material: 'Review: "…"\nSentiment (positive/negative)?', 'Topic (sport, politics):
# "…"'. "Name (first/last): John Smith" is a form's field, not a question, and is left alone.
_BRACKETED = re.compile(
    r"(?:^|\n)[ \t]*(?P<label>[A-Za-z][\w ]{0,30}?)[ \t]*\((?P<listed>[^()\n]+)\)[ \t]*[?:]"
    r"[ \t]*(?P<after>\"[^\"\n]*\"|“[^”\n]*”)?[ \t]*(?=\n|$)"
)
_NAMED_PAIRS = ({"yes", "no"}, {"true", "false"})


def read_bracketed(text: str) -> BlockReading:
    match = _BRACKETED.search(text)
    if match is None:
        return None
    label = match.group("label")
    if len(label.split()) > _LABEL_WORDS or first_word(label) in WH_WORDS | AUXILIARIES:
        return None  # "What is it (in metres)?" is a question with an aside, not a label
    items = _bracketed_items(match.group("listed"))
    if items is None or {item.casefold() for item in items} in _NAMED_PAIRS:
        return None  # "Answer (yes/no):" names an answer space (`_read_named`)
    if any(len(item.split()) > _LABEL_WORDS for item in items):
        return f"the bracketed choices are prose, not labels: {items}"
    stem = text[: match.start()] + " " + (match.group("after") or "") + text[match.end() :]
    if not words_of(stem):
        return "bracketed choices with nothing to choose for"
    # The labelled line is the request; before it is material, after it only its quoted part.
    understood = f"{len(items)} choices in brackets after '{label}'"
    return _around(_block(items, stem.strip(), understood), text, match)


def _bracketed_items(listed: str) -> list[str] | None:
    """ "a/b/c" or "a, b or c"; None when the brackets hold no such list."""
    if "/" in listed:
        items: list[str] | str = [item.strip() for item in listed.split("/")]
    else:
        items = list_items(listed, needs_or=False)
    if isinstance(items, str) or len(items) < 2 or not all(items):
        return None
    return items


def _around(block: BlockReading, text: str, match: re.Match[str]) -> BlockReading:
    """The block with the text before and after the list, which `option_frame` accounts for."""
    if not isinstance(block, OptionBlock):
        return block
    return replace(block, head=text[: match.start()], tail=text[match.end() :])


def _block(items: list[str], stem: str, understood: str) -> BlockReading:
    if len(items) > MAX_OPTIONS:
        return f"{len(items)} listed choices are more than {MAX_OPTIONS}"
    if not all_differ(items):
        return f"the listed choices repeat one another: {items}"
    if names_labels(items):
        # "Pick one: A, B, C or D. Which organelle …?" names the labels of options it never
        # writes out; a letter chosen there would stand for nothing.
        return f"the listed choices are labels of options not written out: {items}"
    return OptionBlock(tuple(items), (), stem, understood)


# Labels in brackets for one thing to put in one class, where the brackets end the text or
# follow the request's own label: "Triage this ticket: I was charged twice (billing, technical,
# shipping)", "Mood of this post (happy, sad, angry): '…'", "Sentiment? (positive / negative)
# '…'". What asks is a verb of putting in a class opening the text (`_CLASS_VERBS`), or a short
# label whose material is quoted. Brackets elsewhere are an aside or material ("The form has
# three fields (name, email, phone). How do I …?"), and are left alone.
_CLASS_VERBS = frozenset(
    words_of("classify categorize categorise triage route label tag assign rate mark sort")
)
_TRAILING = re.compile(r"\((?P<listed>[^()\n]+)\)\s*[.?!]?\s*$")
_AFTER_LABEL = re.compile(
    r"^(?P<label>[A-Za-z][\w' ]{0,60}?)\s*(?P<mark>\?)?\s*\((?P<listed>[^()\n]+)\)\s*"
    r"(?(mark)|[:?])\s*(?P<material>\"[^\"]+\"|“[^”]+”|'.+'|‘[^’]+’)\s*$"
)
_CLASS_LABEL_WORDS = 6
_CLASS_REQUEST_WORDS = 10


def read_bracketed_labels(text: str) -> BlockReading:
    trailing = _TRAILING.search(text)
    labelled = _AFTER_LABEL.match(text)
    match = trailing or labelled
    if match is None or (trailing and labelled):
        return None
    items = _bracketed_items(unenclosed(match.group("listed")))
    if items is None or any(
        len(item.split()) > _LABEL_WORDS or re.search(r"\b(?:e\.g|i\.e|etc)\b", item)
        for item in items
    ):
        return None  # prose, or examples ("(e.g., demand-pull, cost-push)"), not the classes
    label = _class_label(text, trailing, match)
    if label is None:
        return None
    if _SEVERAL & set(words_of(label)):
        return f"'{label.strip()}' may be several things to classify, not one"
    stem = (text[: match.start("listed") - 1] + text[match.end("listed") + 1 :]).strip()
    understood = f"{len(items)} classes in brackets for '{label.strip()}'"
    block = _block(items, stem, understood)
    return replace(block, head=stem, tail="") if isinstance(block, OptionBlock) else block


def _class_label(text: str, trailing: re.Match[str] | None, match: re.Match[str]) -> str | None:
    """What the bracketed classes are for: the request before trailing brackets, which must
    open with a verb of putting in a class, or the short label before them; None if neither."""
    opener = first_word(text)
    if trailing is not None:
        if opener not in _CLASS_VERBS or trailing.start() == 0:
            return None
        return text[: trailing.start()].split(":", 1)[0]
    label = match.group("label")
    # A verb of putting in a class names its one thing at any length up to a clause's ("Tag the
    # priority of this bug report (low, medium, high): '…'"); a bare label is short.
    longest = _CLASS_REQUEST_WORDS if opener in _CLASS_VERBS else _CLASS_LABEL_WORDS
    if len(label.split()) > longest or opener in WH_WORDS | AUXILIARIES:
        return None
    return label
