"""Alternatives in the clause of a question that opens with its auxiliary.

The grammar half of `engine.domain.option_questions`, kept apart for its size: alternatives
put to a short subject ("Is a tomato a vegetable or a fruit?"), in the clause's predicate where
they exclude each other ("Was the Magna Carta signed in 1215 or 1315?", "Is the Amazon longer
or shorter than the Nile?"), or as its subject ("Did Edison or Tesla invent …?"); whether
alternatives are alike; what makes a second question ("…, and why?"); and the block a list of
alternatives reads as, or why not.
"""

import re

from engine.domain.option_blocks import MAX_OPTIONS, BlockReading, OptionBlock
from engine.domain.option_frame import INSTRUCTING
from engine.domain.option_lists import list_items
from engine.domain.option_requests import is_request
from engine.domain.option_texts import all_differ, names_labels
from engine.domain.sentences import AUXILIARIES, WH_WORDS, first_word, words_of

__all__ = [
    "BINOMIALS",
    "COPULAS",
    "POLAR",
    "SECOND_QUESTION",
    "alike",
    "alternatives_block",
    "negated_pair",
    "put_to_clause",
    "put_to_subject",
]


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
SECOND_QUESTION = re.compile(
    r"(?:[,;]\s*|\s+[—–-]+\s+|\s(?:and|but|or|also|so|then)\s+)"
    r"(?:(?:and|but|or|also|so|then|please)\s*,?\s*)*"
    rf"(?:if\s+(?:so|not|yes|no|that'?s\s+the\s+case)\b|otherwise\b|{_WH}\b"
    rf"|(?:to|by|for|from|in|at|on|until|since|of|with)\s+{_WH}\b"
    rf"|(?:{'|'.join(sorted(AUXILIARIES))})(?:n't)?\s+{_SUBJECTS}\b"
    r"|(?:tell|explain|give|list|describe|say|show|name|suggest|recommend|send|let|help|share"
    r"|provide)\b)",
    re.IGNORECASE,
)


# Fixed pairs joined by "or" that qualify a question rather than offer its answers ("Which year
# did it end, give or take?"). A closed class of English binomials, not cues to an answer.
BINOMIALS = frozenset(
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


def alternatives_block(
    texts: list[str] | tuple[str, ...], stem: str, understood: str
) -> BlockReading:
    if " or ".join(text.casefold() for text in texts) in BINOMIALS:
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


# ---- alternatives put to a subject: "Is a tomato a vegetable or a fruit?" --------------------

COPULAS = frozenset(words_of("is are was were"))
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


def put_to_subject(text: str, body: str) -> BlockReading:
    """ "Is <subject> X or Y?": the alternatives after a short subject, when only one split
    of the words into subject and alike alternatives accounts for them.

    "Is it red or dark blue?" or "Is it OK to mix bleach or ammonia?" has no such split; in
    "Is 0.7 larger or smaller than 0.65?" the list runs on past "or" and is refused too.
    """
    if SECOND_QUESTION.search(body):
        return "alternatives joined to a wh-question: two questions in one"
    # A quoted sentence is one word of the subject: "Is the sentence 'It was eaten' passive or
    # active?"; a quote among the alternatives leaves them unread.
    tokens = _QUOTED_SPAN.sub(_QUOTE_TOKEN, body).split()
    # The quoted sentence the subject stands in, after the alternatives: "Is the word 'lead' a
    # noun or a verb in 'Lead the way'?" is the question without its "in <quote>".
    if len(tokens) > 3 and tokens[-1] == _QUOTE_TOKEN and tokens[-2].casefold() == "in":
        tokens = tokens[:-2]
    splits = []
    for start in range(2, len(tokens)):
        items = list_items(" ".join(tokens[start:]))
        if _is_subject(tokens[1:start]) and not isinstance(items, str) and alike(items):
            splits.append((" ".join(tokens[1:start]), items))
    if len(splits) != 1 or any(_QUOTE_TOKEN in item for item in splits[0][1]):
        return None
    (subject, items), *_ = splits
    return alternatives_block(items, text, f"{len(items)} alternatives put to '{subject}'")


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


def alike(items: list[str]) -> bool:
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
    if negated_pair(items):
        return True
    if any(first in _ARTICLES | {"not"} for first in firsts):
        return False
    return len({len(item.split()) for item in items}) == 1


def negated_pair(items: list[str]) -> bool:
    """ "spam" or "not spam": a label and its negation."""
    return len(items) == 2 and items[1].casefold() == "not " + items[0].casefold()


# ---- alternatives in a polar question's clause: "Is the Sahara in Africa or Asia?" -----------

# Auxiliaries whose question asks which, when it offers alternatives: being, doing, "should".
# A modal of possibility ("Can I pay by card or cash?") asks whether either will do.
POLAR = frozenset(words_of("is are was were do does did should"))
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


def put_to_clause(text: str, body: str) -> BlockReading:
    """ "Was the Magna Carta signed in 1215 or 1315?", "Should it be stored in the fridge or on
    the counter?", "Is the Amazon longer or shorter than the Nile?", "Did Edison or Tesla invent
    …?": the alternatives end the question (or stand before its "than"), or are its subject;
    read only where one split of the words into clause and alike alternatives accounts for all
    of them (a clause that holds an infinitive, another clause or "you" is no such split)."""
    if SECOND_QUESTION.search(body) or is_request(body + "?", body + "?"):
        return None
    tokens = body.split()
    found: dict[tuple[str, ...], str] = {}
    for start in range(2, len(tokens)):
        clause = tokens[1:start]
        if not _is_clause(clause):
            continue
        rest = tokens[start:]
        ends = [len(rest)] + [i for i, token in enumerate(rest) if token.casefold() == "than"]
        # The compared pair may stand before an adverbial that still precedes its "than": "Is
        # light faster or slower in water than in a vacuum?"; every end before "than" is tried,
        # and only alike alternatives are kept, so "slower in water" is never one.
        than = ends[1] if len(ends) > 1 else 0
        ends += list(range(1, than))
        for end in ends:
            items = list_items(" ".join(rest[:end]))
            if isinstance(items, str) or not alike(items) or end <= 0:
                continue
            if end < than and not _ends_compared(rest[end], items):
                continue  # "cheaper or more | expensive to fly than …" cuts an alternative
            if _exclusive(first_word(body), clause, items, compared=end <= than):
                found[tuple(items)] = " ".join(clause)
    subject = _subject_alternatives(tokens)
    if subject is not None:
        found[subject] = "the question's subject"
    if len(found) != 1:
        return None
    ((alternatives, where),) = found.items()
    return alternatives_block(
        list(alternatives), text, f"{len(alternatives)} alternatives after '{where}'"
    )


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


# Where a compared pair may end before its "than": at a preposition opening an adverbial ("in
# water than in a vacuum"), or after comparatives in "-er" ("louder or quieter underwater").
_ADVERBIAL = frozenset(words_of("in at on per for during under over with by from after before"))


def _ends_compared(following: str, items: list[str]) -> bool:
    if first_word(following) in _ADVERBIAL:
        return True
    return all(re.fullmatch(r"[A-Za-z]+er", item) for item in items)


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
    if not named or first_word(rest[0]) in _NOT_IN_CLAUSE or rest[0][:1].isupper():
        return None  # a capital after the second name continues it: "Spotify or Apple Music"
    return (" ".join(first), " ".join(second))
