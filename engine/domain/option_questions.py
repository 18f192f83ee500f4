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

from engine.domain.option_blocks import MAX_OPTIONS, BlockReading, OptionBlock
from engine.domain.option_frame import INSTRUCTING
from engine.domain.option_lists import list_items
from engine.domain.option_requests import is_request
from engine.domain.option_texts import all_differ, names_labels, unquoted
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


def _block(texts: list[str] | tuple[str, ...], stem: str, understood: str) -> BlockReading:
    if " or ".join(text.casefold() for text in texts) in _BINOMIALS:
        return f"{' or '.join(texts)!r} is a fixed phrase, not alternatives"
    if not all_differ(texts):
        return f"the alternatives repeat one another: {list(texts)}"
    if first_word(texts[0]) in INSTRUCTING:
        # "Answer A, B, C or D: …", "Reply yes, no or maybe": the list is what an instruction
        # allows as the answer, and its verb is no part of the first alternative.
        return f"the first alternative opens with an instruction: {texts[0]!r:.60}"
    if names_labels(texts):
        return f"the alternatives are labels of options not written out: {list(texts)}"
    if len(texts) > MAX_OPTIONS:
        return f"{len(texts)} alternatives are more than {MAX_OPTIONS}"
    return OptionBlock(tuple(texts), (), stem, understood)


# ---- a yes/no question ------------------------------------------------------------------------

# A second question joined to the first: "Is 97 prime, and what are its factors?", "Is it
# normal and how long does it last?", "Did it move, and if so, to when?", "Is it safe, and can
# I …?", "Is it open, and tell me when". Yes or no answers only the first. The yes/no question
# must be one clause: after a comma, semicolon, dash or conjunction, a wh-word (behind a
# preposition too: "to when", "by how much"), a second auxiliary with its subject, an imperative,
# or a follow-up ("if so", "if not", "otherwise") asks something more. Every yes/no question in
# the four held-out sets is one clause, so this costs none of them; set 4 had "Did the meeting
# get moved, and if so, to when?" read as yes/no.
_WH = r"(?:what|which|who|whom|whose|where|when|why|how)"
_SUBJECTS = (
    r"(?:i|you|we|they|he|she|it|there|this|that|these|those|the|a|an|my|our|your|their|his|her"
    r"|its)"
)
_SECOND_QUESTION = re.compile(
    r"(?:[,;]\s*|\s+[—–-]+\s+|\s(?:and|but|or|also|so|then)\s+)"
    r"(?:(?:and|but|or|also|so|then|please)\s*,?\s*)*"
    rf"(?:if\s+(?:so|not|yes|no|that'?s\s+the\s+case)\b|otherwise\b|{_WH}\b"
    rf"|(?:to|by|for|from|in|at|on|until|since|of|with)\s+{_WH}\b"
    rf"|(?:{'|'.join(sorted(AUXILIARIES))})(?:n't)?\s+{_SUBJECTS}\b"
    r"|(?:tell|explain|give|list|describe|say|show|name|suggest|recommend|send|let|help|share"
    r"|provide)\b)",
    re.IGNORECASE,
)


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
    if _SECOND_QUESTION.search(clause):
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
# Fixed pairs joined by "or" that qualify a question rather than offer its answers ("Which year
# did it end, give or take?"). A closed class of English binomials, not cues to an answer.
_BINOMIALS = frozenset(
    [
        "give or take",
        "more or less",
        "sooner or later",
        "rain or shine",
        "win or lose",
        "now or never",
        "all or nothing",
        "one way or another",
        "one way or the other",
        "for better or worse",
        "for better or for worse",
        "like it or not",
        "dead or alive",
        "by hook or by crook",
        "do or die",
        "or so",
    ]
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
    if first_word(listed) in WH_WORDS:
        return _picked(text, listed, _HEAD.match(listed))
    return _in_clause(text, listed)


def _in_clause(text: str, body: str) -> BlockReading:
    """Alternatives in a question that opens with its auxiliary (after context, perhaps), or
    that is the list itself ("Tea or coffee?")."""
    if first_word(body) in _COPULAS:
        put = _put_to_subject(text, body)
        if put is not None:
            return put
    if first_word(body) in _POLAR:
        return _put_to_clause(text, body)
    # Context before the question's clause: "With angles of 30°, 60° and 90°, is the triangle
    # acute, right or obtuse?" The context holds no "or" and asks nothing.
    context = _CONTEXT_THEN_CLAUSE.match(body)
    if context and not re.search(r"\bor\b", context.group("context")):
        clause = context.group("clause")
        if first_word(clause) in _COPULAS:
            return _put_to_subject(text, clause)
    return _headless(text, body)


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
        return None if _SECOND_QUESTION.search(asked) else listed
    if colon.strip() == ":" and len(listed.split()) <= _LABEL_WORDS and "or" not in listed:
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
        return _block(items, text, "2 words for the blank in the quoted sentence")
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
    if not _negated_pair(items) and any(first_word(item) in openers for item in items):
        return None  # "Is it raining or not?" is a yes/no question; "Spam or not spam?" is not
    if any(re.search(r"[()\[\]]", item) for item in items):
        return None  # "Sentiment (positive, negative or neutral)?" lists in brackets
    return _block(items, text, f"{len(items)} alternatives")


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
    return _block(items, text, f"{len(items)} alternatives after '{label}'")


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
    return _block(items, text, f"{len(items)} members of the set the question picks from")


_SET_ITEM_WORDS = 2


# ---- alternatives put to a subject: "Is a tomato a vegetable or a fruit?" --------------------

_COPULAS = frozenset(words_of("is are was were"))
_ARTICLES = frozenset(words_of("a an the"))
# A subject is a short noun phrase: "a bat", "the number 0", "this review", "Tom's car". Words
# that open or join a longer phrase ("it OK to mix bleach", "the shop open on Sunday", "there")
# mean the words before "or" are not subject + alternative, and the question is refused.
_NOT_IN_SUBJECT = (
    frozenset(
        words_of(
            "to on at for with by from about into onto than as like over under after before "
            "between through during without within per and or but not any some there you u ye i we "
            "if when because so very more most less least too also"
        )
    )
    | AUXILIARIES
    | WH_WORDS
)
_QUOTED_SPAN = re.compile(r"(?<!\w)'[^'\n]+\s[^'\n]+'(?!\w)|\"[^\"\n]+\s[^\"\n]+\"|“[^”]+\s[^”]+”")
_QUOTE_TOKEN = "quoted"
_LONE_PRONOUNS = frozenset(words_of("it he she they we one"))
# "of" and "in" join two noun phrases inside a subject ("the tone of this message", "the animal
# in this text"), never end one ("the shop open in" | "summer or winter").
_INSIDE_SUBJECT = frozenset(words_of("of in"))
_SUBJECT_WORDS = 5


def _put_to_subject(text: str, body: str) -> BlockReading:
    """ "Is <subject> X or Y?": the alternatives after a short subject, when only one split
    of the words into subject and alike alternatives accounts for them.

    "Is it red or dark blue?" or "Is it OK to mix bleach or ammonia?" has no such split; in
    "Is 0.7 larger or smaller than 0.65?" the list runs on past "or" and is refused too.
    """
    if _SECOND_QUESTION.search(body):
        return "alternatives joined to a wh-question: two questions in one"
    # A quoted sentence is one word of the subject: "Is the sentence 'It was eaten' passive or
    # active?"; a quote among the alternatives leaves them unread.
    tokens = _QUOTED_SPAN.sub(_QUOTE_TOKEN, body).split()
    splits = []
    for start in range(2, len(tokens)):
        items = list_items(" ".join(tokens[start:]))
        if _is_subject(tokens[1:start]) and not isinstance(items, str) and _alike(items):
            splits.append((" ".join(tokens[1:start]), items))
    if len(splits) != 1 or any(_QUOTE_TOKEN in item for item in splits[0][1]):
        return None
    (subject, items), *_ = splits
    return _block(items, text, f"{len(items)} alternatives put to '{subject}'")


def _is_subject(tokens: list[str]) -> bool:
    words = words_of(" ".join(tokens))
    if not words or len(tokens) > _SUBJECT_WORDS or _NOT_IN_SUBJECT & set(words):
        return False
    if words[0] in _LONE_PRONOUNS and len(tokens) > 1:
        return False  # "it red" is a subject and the start of a predicate
    if words[-1] in _ARTICLES | _INSIDE_SUBJECT or any(
        token.endswith((",", ":", ";")) for token in tokens
    ):
        # A comma inside the subject is the list's own: in "Is the document relevant, partially
        # relevant, or not relevant?" a subject "the document relevant, partially" would leave
        # two of three alternatives (held-out set 6). Every item joined by ", " and ", or" is
        # kept, or the question is refused.
        return False
    return words[0] not in _INSIDE_SUBJECT


# What a question may offer beside its alternatives: "Is a tomato a fruit, a vegetable, or
# both?", "Is 0 positive, negative, or neither?". They are options where the question writes
# them, and say nothing of the others' shape.
_BESIDES = frozenset(words_of("both neither"))


def _alike(items: list[str]) -> bool:
    """Whether alternatives have one shape: all open with an article ("a bird", "a mammal"),
    or none does and all have as many words ("even", "odd"); "spam" or "not spam" too; a last
    "both" or "neither" aside."""
    while len(items) > 2 and items[-1].casefold() in _BESIDES:
        items = items[:-1]
    firsts = [first_word(item) for item in items]
    if any(first in WH_WORDS | AUXILIARIES for first in firsts):
        return False
    if all(first in _ARTICLES for first in firsts):
        return True
    if _negated_pair(items):
        return True
    if any(first in _ARTICLES | {"not"} for first in firsts):
        return False
    return len({len(item.split()) for item in items}) == 1


def _negated_pair(items: list[str]) -> bool:
    """ "spam" or "not spam": a label and its negation."""
    return len(items) == 2 and items[1].casefold() == "not " + items[0].casefold()


# ---- alternatives in a polar question's clause: "Is the Sahara in Africa or Asia?" -----------

# Auxiliaries whose question asks which, when it offers alternatives: being, doing, "should".
# A modal of possibility ("Can I pay by card or cash?") asks whether either will do.
_POLAR = frozenset(words_of("is are was were do does did should"))
# Words that make the words before the list more than a clause's subject and predicate: an
# infinitive or a clause of its own ("Is it OK to eat eggs or milk?"), the asker's "you".
_NOT_IN_CLAUSE = (
    frozenset(
        words_of(
            "to if when because and or but whether either than so while although you u please any"
        )
    )
    | WH_WORDS
)
_CLAUSE_WORDS = 8
_DETERMINERS = frozenset(words_of("the a an this that these those my your our their his her its"))
_SUBJECT_ALTERNATIVE_WORDS = 2


def _put_to_clause(text: str, body: str) -> BlockReading:
    """ "Was the Magna Carta signed in 1215 or 1315?", "Should it be stored in the fridge or on
    the counter?", "Is the Amazon longer or shorter than the Nile?", "Did Edison or Tesla invent
    …?": the alternatives end the question (or stand before its "than"), or are its subject;
    read only where one split of the words into clause and alike alternatives accounts for all
    of them (a clause that holds an infinitive, another clause or "you" is no such split)."""
    if _SECOND_QUESTION.search(body) or is_request(body + "?", body + "?"):
        return None
    tokens = body.split()
    found: dict[tuple[str, ...], str] = {}
    for start in range(2, len(tokens)):
        clause = tokens[1:start]
        if not _is_clause(clause):
            continue
        rest = tokens[start:]
        ends = [len(rest)] + [i for i, token in enumerate(rest) if token.casefold() == "than"]
        for end in ends:
            items = list_items(" ".join(rest[:end]))
            if isinstance(items, str) or not _alike(items) or end <= 0:
                continue
            if _exclusive(first_word(body), clause, items, compared=end < len(rest)):
                found[tuple(items)] = " ".join(clause)
    subject = _subject_alternatives(tokens)
    if subject is not None:
        found[subject] = "the question's subject"
    if len(found) != 1:
        return None
    ((alternatives, where),) = found.items()
    return _block(list(alternatives), text, f"{len(alternatives)} alternatives after '{where}'")


# "or" in a question may be inclusive: "Is the bank open on Monday or Tuesday?" asks whether it
# opens on either, and "both" answers it. The alternatives exclude each other where the asker
# offers "both" or "neither" too, where they are compared ("longer or shorter than"), where one
# event is asked about ("Was it signed in 1215 or 1315?", "Did …"), where advice picks one
# ("Should it be stored in the fridge or on the counter?"), or where a named thing's place is
# asked ("Is the Sahara in Africa or Asia?"). Anything else is refused: recall, not precision.
_ONE_EVENT = frozenset(words_of("was were did should"))
_PLACE = frozenset(words_of("in on at near"))


def _exclusive(auxiliary: str, clause: list[str], items: list[str], *, compared: bool) -> bool:
    if compared or items[-1].casefold() in _BESIDES or auxiliary in _ONE_EVENT:
        return True
    *name, preposition = clause
    if name[:1] and name[0].casefold() == "the":
        name = name[1:]
    return (
        bool(name)
        and all(token[:1].isupper() for token in name)
        and preposition.casefold() in _PLACE
    )


def _is_clause(tokens: list[str]) -> bool:
    words = words_of(" ".join(tokens))
    return (
        0 < len(tokens) <= _CLAUSE_WORDS
        and words[-1:] != []
        and words[-1] not in _DETERMINERS  # "the" | "new library go …"
        and not _NOT_IN_CLAUSE & set(words)
        and not any(token.endswith((",", ":", ";")) for token in tokens)
    )


def _subject_alternatives(tokens: list[str]) -> tuple[str, ...] | None:
    """ "Is Canberra or Sydney the capital?": names or numbers, alike, as the subject."""
    if "or" not in tokens[1:4]:
        return None
    split = tokens.index("or", 1)
    first, second = tokens[1:split], tokens[split + 1 : split + split]
    rest = tokens[split + split :]
    if not rest or len(first) > _SUBJECT_ALTERNATIVE_WORDS or len(second) != len(first):
        return None
    if any(token.endswith((",", ":", ";")) for token in first + second):
        return None
    named = all(token[:1].isupper() or token[:1].isdigit() for token in first + second)
    if not named or first_word(rest[0]) in _NOT_IN_CLAUSE:
        return None
    return (" ".join(first), " ".join(second))


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
    if isinstance(items, str) or not _alike(items):
        return None
    if any(len(item.split()) > _HEADLESS_WORDS or first_word(item) in WH_WORDS for item in items):
        return None
    block = _block(items, text, f"{len(items)} alternatives heading the material")
    if not isinstance(block, OptionBlock):
        return block
    return OptionBlock(block.texts, (), text, block.understood, head=material, tail="")
