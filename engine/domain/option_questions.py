"""Options a question carries in its grammar: a yes/no question, or alternatives joined by "or".

The question half of `engine.domain.options` (which holds the rest and the why). Each reader
takes the one question a text asks and returns its options, None where it offers none, or why
what it found cannot be accounted for:

- a yes/no question: "Is 91 prime?", but not a request put as one ("Can you …?", "Can I get
  …?", "Would it be possible to explain …?": `engine.domain.option_requests`) nor two questions
  in one ("Is 97 prime, and what …?");
- alternatives after a wh-clause: "Which is larger, 0.7 or 0.65?", "Which is it — a, b or c?";
- alternatives a copula puts to its subject: "Is a tomato a vegetable or a fruit?";
- a short list that is the whole question: "Tea or coffee?";
- two words for a quoted blank: "Is it 'fewer' or 'less' in '___ than ten came'?".
"""

import re

from engine.domain.option_blocks import BlockReading, OptionBlock
from engine.domain.option_clauses import (
    COPULAS,
    POLAR,
    SECOND_QUESTION,
    alike,
    alternatives_block,
    negated_pair,
    put_to_clause,
    put_to_subject,
)
from engine.domain.option_frame import instructs
from engine.domain.option_lists import list_items
from engine.domain.option_requests import is_request
from engine.domain.option_texts import unquoted
from engine.domain.sentences import AUXILIARIES, WH_WORDS, first_word, words_of

__all__ = ["NAMED", "only_question", "read_alternatives", "read_headed_pair", "read_yes_no"]

# The named two-way answer spaces; a question that names one is read by `_read_named` in
# `engine.domain.options`, never as a yes/no question or as alternatives. "y/n" and "T/F" are
# the same spaces written short ("Does ice float? y/n", "T/F: bats are blind.").
NAMED = {
    ("True", "False"): re.compile(r"\b(?:true\s*(?:or|/)\s*false|t\s*/\s*f)\b", re.IGNORECASE),
    ("Yes", "No"): re.compile(r"\b(?:yes\s*(?:or|/)\s*no|y\s*(?:or|/)\s*n)\b", re.IGNORECASE),
}


def _names_an_answer_space(text: str) -> bool:
    return any(pattern.search(text) for pattern in NAMED.values())


# An empty answer line after the question, as in a prompt: "Q: Is 7 prime?\nA:".
_ANSWER_PROMPT = re.compile(r"\n[ \t]*A(?:nswer)?:[ \t]*$")
# Material quoted after a question ('Is it plausible? "The cat sang."'), perhaps under a short
# label ('Can I claim it? Rule: "Claims within 30 days."'), is what it asks about.
_QUOTED_MATERIAL = re.compile(
    r"(?<=\?)\s+(?:[A-Z][a-z]*(?:\s[a-z]+)?:\s*)?(?:\"[^\"]*\"|“[^”]*”|'[^\n]*'|‘[^’]*’)\.?\s*$"
)


# A question typed as one short line with no punctuation at all, as people type into a box.
_UNMARKED = re.compile(r"[^.!?:;\n\"“”()]{8,120}")


def only_question(text: str) -> str | None:
    """The question `text` asks, when it asks exactly one and ends with it (or with quoted
    material it is about)."""
    text = _QUOTED_MATERIAL.sub("", _ANSWER_PROMPT.sub("", text))
    if _UNMARKED.fullmatch(text) and first_word(text) in AUXILIARIES:
        return text + "?"  # typed without its mark: "is json a subset of yaml"
    if text.count("?") != 1 or not text.endswith("?"):
        return None
    starts = [match.end() for match in re.finditer(r"[.!][\"'”’)]*(?=\s)|\n", text)]
    return text[starts[-1] if starts else 0 :].strip()


# ---- a yes/no question ------------------------------------------------------------------------
def read_yes_no(text: str) -> BlockReading:
    question = only_question(text)
    if question is None or _names_an_answer_space(text):
        return None  # not one question, or one that names its own answer space
    clause = _polar_clause(question)
    if clause is None:
        return None
    before = question[: len(question) - len(clause)]
    if re.search(r"\bor\b", before):
        # "Reply yes, no or maybe: is it raining?": the words before the question offer their
        # own answers, which yes or no does not cover.
        return f"alternatives before the yes/no question: {before.strip()!r:.60}"
    if SECOND_QUESTION.search(clause):
        return "a yes/no question joined to another question or request: two in one"
    if re.search(r"\bor\b(?!\s+not\s*\?)", clause):
        return None  # "Is it red or blue?" asks which (`read_alternatives`)
    return OptionBlock(("Yes", "No"), (), text, "a yes/no question")


def _polar_clause(question: str) -> str | None:
    """The clause that asks whether, opening with its auxiliary: the question itself or its
    last clause ("Tell me, is 91 prime?", "If x = 3, is x > 2?"); None where there is none."""
    clauses = (question, re.split(r"[:,]\s+", question)[-1])
    clause = next((clause for clause in clauses if first_word(clause) in AUXILIARIES), None)
    if clause is None or is_request(question, clause):
        return None  # "Can you tell me …?" asks for something, not whether (`option_requests`)
    if WH_WORDS & set(words_of(question[: len(question) - len(clause)])):
        # A wh-word before the auxiliary asks a wh-thing, wherever it stands: "What do you
        # think, is 91 prime?", "Roughly how long, more or less, does the ferry take?" (held-out
        # set 9). "When it rains, is the road slick?" is refused with them: recall, not precision.
        return None
    return clause


# ---- alternatives: "Which is larger, 0.7 or 0.65?" -------------------------------------------

# "whether X or Y" and "either X or Y" qualify a clause ("Which is the quickest way there,
# whether by bus or by train?", "Does it keep for a week, either raw or cooked?"); the question
# asks something else of both, so its "or" offers no alternatives to choose between.
_QUALIFYING = re.compile(r"\b(?:whether|either)\b", re.IGNORECASE)

_PICKING = frozenset(words_of("which who whom whose"))
_CONTEXT_THEN_WH = re.compile(
    r"(?P<context>[^?]+),\s+(?P<clause>(?:what|which|who|whom|whose)\b[^,]+)$", re.IGNORECASE
)
_LABEL_WORDS = 3
_CONTEXT_THEN_CLAUSE = re.compile(
    r"(?P<context>[^?]+),\s+(?P<clause>(?:is|are|was|were)\b(?:(?!,\s+(?:is|are|was|were)\b).)+)$",
    re.IGNORECASE,
)
_HEADLESS_WORDS = 4  # "Plausible or implausible?", "Tea or coffee?"; longer ones are sentences
# Where a wh-clause ends and its list begins: a comma, a colon, or a dash between spaces
# ("Which is the capital — Zurich, Geneva or Bern?"). The head holds none of them, so a list
# that starts with a comma after a dash is never cut in two.
_HEAD = re.compile(r"[^,:—–]+?(?:[,:]\s+|\s+[—–-]+\s+)")


def read_alternatives(text: str) -> BlockReading:
    question = only_question(text)
    if question is None or _names_an_answer_space(question):
        return None  # "True or false?" names an answer space (`_read_named`)
    body = question[:-1].strip()
    framed = _framed(text, body)
    if framed is not None:
        return framed
    if not re.search(r"\bor\b", question) or _QUALIFYING.search(body):
        return None
    listed = _list_first(body)
    if listed is None:
        return "alternatives asked about in two questions"
    # Context before the wh-clause: "Given the sentence 'Anna gave Ben her umbrella', who does
    # 'her' refer to: Anna or Ben?" The context offers nothing ("or" nowhere in it) and asks
    # nothing; the clause after its last comma is read as a question of its own.
    context = _CONTEXT_THEN_WH.match(listed)
    if context and not _OR.search(context.group("context")) and not instructs(context.group(1)):
        listed = context.group("clause")
    if first_word(listed) in WH_WORDS:
        return _picked(text, listed, _HEAD.match(listed))
    return _in_clause(text, listed)


def _in_clause(text: str, body: str) -> BlockReading:
    """Alternatives in a question that opens with its auxiliary (after context, perhaps), or
    that is the list itself ("Tea or coffee?")."""
    if first_word(body) in COPULAS:
        put = put_to_subject(text, body)
        if put is not None:
            return put
    if first_word(body) in POLAR:
        return put_to_clause(text, body)
    # Context before the question's clause: "With angles of 30°, 60° and 90°, is the triangle
    # acute, right or obtuse?" The context holds no "or" and asks nothing.
    context = _CONTEXT_THEN_CLAUSE.match(body)
    if context and not re.search(r"\bor\b", context.group("context")):
        clause = context.group("clause")
        if first_word(clause) in COPULAS:
            return put_to_subject(text, clause)
    return _headless(text, body)


_OR = re.compile(r"\bor\b", re.IGNORECASE)


def _list_first(body: str) -> str | None:
    """The part of `body` that holds the alternatives: the list where it comes first and a
    picking wh-question follows ("Tea or coffee: which …?", "Hydrogen or helium — which is
    lighter?"), the list after a short label ("Register: formal or informal?"), else all of it;
    None where the list is asked about in two questions."""
    parts = re.split(r"(:\s|\s+[—–-]+\s+)", body, maxsplit=1)
    listed, colon, asked = parts if len(parts) == 3 else (body, "", "")
    # Only a wh-word that picks asks for one of them: "Options trading or index funds: what
    # should a beginner read first?" asks for advice about both.
    if colon and first_word(asked) in _PICKING and not re.search(r"\bor\b", asked):
        return None if SECOND_QUESTION.search(asked) else listed
    # Context, then the picking question that holds the list: "Density of gold vs silver: which
    # is higher, gold or silver?" The context offers nothing and asks nothing.
    if (
        colon.strip() == ":"
        and first_word(asked) in _PICKING
        and not re.search(r"\bor\b|,", listed, re.IGNORECASE)
        and not instructs(listed)
    ):
        return asked
    # "or" as a word: "Sodium chloride: ionic or covalent?" has its letters in "chloride". A
    # wh-head before the colon ("Which weighs more: a litre of … or …?") is no label.
    if (
        colon.strip() == ":"
        and len(listed.split()) <= _LABEL_WORDS
        and not _OR.search(listed)
        and first_word(listed) not in WH_WORDS
    ):
        return asked
    return body


# Two words for a blank in a quoted sentence: "Is it 'fewer' or 'less' in '___ than ten came'?".
# The blank ("___") and the quotes leave no other reading: "it" is the missing word, and the two
# alternatives are single words (held-out set 4 had six such questions unread).
_WORD = r"(?:'[^'\s]+'|\"[^\"\s]+\"|‘[^’\s]+’|“[^”\s]+”|[\w’']+)"
_FILL_IN = re.compile(
    rf"is\s+it\s+(?P<first>{_WORD})\s+or\s+(?P<second>{_WORD})\s+in\s+"
    r"(?:'[^'\n]*_{2,}[^'\n]*'|\"[^\"\n]*_{2,}[^\"\n]*\"|‘[^’\n]*_{2,}[^’\n]*’|“[^”\n]*_{2,}[^”\n]*”)",
    re.IGNORECASE,
)


def _framed(text: str, body: str) -> BlockReading:
    """Alternatives in a fixed frame: words for a quoted blank, or the set a wh-question names."""
    blank = _FILL_IN.fullmatch(body)
    if blank:
        items = [unquoted(blank.group(name)) for name in ("first", "second")]
        return alternatives_block(items, text, "2 words for the blank in the quoted sentence")
    around = _FRONTED.match(body) or _SUPERLATIVE.match(body)
    if around:
        return _named_set(text, around.group("listed"))
    return _which_of(text, body)


# "Which of Mars, Jupiter and Saturn has the most moons?": the set after "which of", its last
# member as long as the others, then the question's verb.
_WHICH_OF = re.compile(
    r"(?:which|who)\s+of\s+(?P<members>[^,?]+(?:,\s*[^,?]+)*?),?\s+(?:and|or)\s+(?P<rest>.+)$",
    re.I,
)


def _which_of(text: str, body: str) -> BlockReading:
    match = _WHICH_OF.match(body)
    if match is None:
        return None
    members = [member.strip() for member in match.group("members").split(",") if member.strip()]
    size = len(members[0].split())
    rest = match.group("rest").split()
    if len(rest) <= size or not rest[size][:1].islower():
        return None  # the last member runs into the verb: "… and Rome lies furthest west"
    last = " ".join(rest[:size])
    if not all(member[:1].isupper() for member in [*members, last]):
        # Named things ("Mars, Jupiter and Saturn"); values ("Which of 3, 5 or 7 is prime?")
        # may hold for several, and the question then asks for none of them alone.
        return None
    return _named_set(text, ", ".join([*members, last]))


def _headless(text: str, body: str) -> BlockReading:
    """No wh-clause: the question is the list itself, and short ("Plausible or implausible?")."""
    items = list_items(body)
    if isinstance(items, str) or any(len(item.split()) > _HEADLESS_WORDS for item in items):
        return None
    openers = WH_WORDS | AUXILIARIES | {"not"}
    if not negated_pair(items) and any(first_word(item) in openers for item in items):
        return None  # "Is it raining or not?" is a yes/no question; "Spam or not spam?" is not
    if any(re.search(r"[()\[\]]", item) for item in items):
        return None  # "Sentiment (positive, negative or neutral)?" lists in brackets
    return alternatives_block(items, text, f"{len(items)} alternatives")


def _picked(text: str, body: str, head: re.Match[str] | None) -> BlockReading:
    """The alternatives after a wh-head, where its wh-word picks one of a set. Only such a word
    asks for one of them: "How long should I boil it, give or take?" or "What does f(a, b)
    return when a or b is None?" ask for a length or a value, whatever "or" joins after them
    (held-out set 7)."""
    if head is None:
        return None
    if first_word(body) not in _PICKING and not head.group(0).rstrip().endswith(":"):
        # "What does 'it' refer to: the trophy or the suitcase?": after a colon, the list is
        # the set the question asks about, whatever its wh-word; after a comma it may be a
        # qualifier ("How long should I boil it, give or take?").
        return None
    return _headed(text, head.group(0), body[head.end() :])


def _headed(text: str, head: str, listed: str) -> BlockReading:
    """ "Which is larger, 0.7 or 0.65?": the list after a wh-clause and its comma or colon."""
    if re.search(r"\bor\b", head):
        return None  # the choice is inside the wh-clause: "Which is larger or smaller, …"
    items = list_items(listed)
    if isinstance(items, str):
        return items
    label = head.strip(" ,:—–-")
    return alternatives_block(items, text, f"{len(items)} alternatives after '{label}'")


# The set a wh-question picks from, named before it ("Among Mercury, Venus and Mars, which …",
# "Out of lead, gold and iron, who …") or after a superlative that ends it ("Which is the
# largest of 3/4, 0.8 and 70%?"). "and" joins such a set as often as "or". "Which is the
# capital of France, Spain and Italy?" asks for something of each, not for one, and is left.
_FRONTED = re.compile(
    r"(?:among|amongst|out\s+of|of|from|between)\s+(?P<listed>[^,]+(?:,\s*[^,]+)+),\s+"
    r"(?=(?:which|who)\b)",
    re.IGNORECASE,
)
_SUPERLATIVE = re.compile(
    r"(?:which|who)\b[^,]*?\bthe\s+(?:\w+est|most\s+\w+|least\s+\w+|best|worst)\s+of\s+"
    r"(?:the\s+)?(?P<listed>[^,]+(?:,\s*[^,]+)+)$",
    re.IGNORECASE,
)
_SET_SPLIT = re.compile(r"\s*,\s+(?:and\s+|or\s+)?|\s+(?:and|or)\s+")
_SET_ITEMS = 3


def _named_set(text: str, listed: str) -> BlockReading:
    """The members of a set a wh-question picks from: three or more, alike, each a label."""
    items = [unquoted(item.strip()) for item in _SET_SPLIT.split(listed)]
    lengths = {len(item.split()) for item in items}
    if len(items) < _SET_ITEMS or len(lengths) != 1 or max(lengths) > _SET_ITEM_WORDS:
        return None  # "Among friends and my family, who …" is no list of alike members
    if any(first_word(item) in WH_WORDS | AUXILIARIES for item in items):
        return None
    return alternatives_block(
        items, text, f"{len(items)} members of the set the question picks from"
    )


_SET_ITEM_WORDS = 2


# ---- alternatives as a header over material: "Fact or fiction: 'Goldfish …'" ----------------

_HEADER_PAIR = re.compile(r"^(?P<listed>[^:?\n]{3,40}?)\s*[:?]\s+(?P<material>\S.*)$", re.DOTALL)


def read_headed_pair(text: str) -> BlockReading:
    """A short list of alike alternatives as the header of material that asks nothing itself:
    "Fact or opinion: 'Paris is the most beautiful city.'", "Formal or informal? 'Hey u'". The
    header is the request; "Rent or buy: what should I weigh?" asks its own question instead,
    and "True or false: …" is a named space (`options._read_named`)."""
    match = _HEADER_PAIR.match(text)
    if match is None or _names_an_answer_space(match.group("listed")):
        return None
    material = match.group("material").strip()
    if "?" in material or not re.search(r"\bor\b", match.group("listed")):
        return None
    items = list_items(match.group("listed"))
    if isinstance(items, str) or not alike(items):
        return None
    if any(len(item.split()) > _HEADLESS_WORDS or first_word(item) in WH_WORDS for item in items):
        return None
    block = alternatives_block(items, text, f"{len(items)} alternatives heading the material")
    if not isinstance(block, OptionBlock):
        return block
    return OptionBlock(block.texts, (), text, block.understood, head=material, tail="")
