"""Arithmetic word problems read sentence by sentence, each sentence matched whole or refused.

A problem is a story about one count and a question about it. Every sentence (split at ". ? !"
and at "and" before a new clause) must match one clause of the grammar below from its first word
to its last; the slots for names and nouns take any words except numbers and the operative words
of `reading.OPERATIVE` (so "gave 10 to each of her 3 friends" cannot hide "each" or a number in a
noun slot). Then `reading.require_whole` checks that every number was used.

Clauses (N a number, [name] and [things] free words):

- start: "[name] has/had/owns/collected N [things]", "there are N [things] [where]";
- change: "[name] gives away / loses / eats / spends / sells N [things]" subtracts,
  "[name] gets / buys / finds / receives / earns N more [things]" adds, "N more [things] join";
- groups: "[name] has N [boxes] with N [things] each" or "N [boxes] of N [things]" multiplies;
- rate: "[name] earns N [money] an hour and works N hours" multiplies;
- sharing: "[name] shares N [things] equally among N [people]" divides;
- the question: "how many [things] does [name] have (now/left)?", "how many [things] are there
  (now/left)?", "how many ... in total?", "how many does each get?", "how much does [name] earn?".

Why a grammar written here: no kept library parses English word problems into arithmetic (the
general case is the program tool's: the model writes the program). The verbs below are the
grammar's lexicon, not cue words: a sentence either matches a clause whole or the problem is
refused, so a new phrasing costs coverage, never a wrong answer.

>>> read_word_problem("Ann has 4 apples and gets 3 more. How many apples does she have now?").understood
'4 + 3'
>>> read_word_problem("A bus has 30 seats and 12 are empty. How many are taken?")
Traceback (most recent call last):
...
engine.errors.ToolRefusal: cannot read '12 are empty' as part of a word problem
"""

import re
from dataclasses import dataclass

from engine.adapters.tools.reading import OPERATIVE, Reading, normalise, require_whole
from engine.errors import ToolRefusal

__all__ = ["read_word_problem"]

_NUM = r"(?P<n>\d+(?:\.\d+)?)"
_NUM2 = r"(?P<m>\d+(?:\.\d+)?)"
# A name or a noun phrase: one to four words, none of them operative, so that no slot can hide
# a word that changes the arithmetic ("each", "left", "more").
_FREE_WORD = rf"(?!(?:{'|'.join(sorted(OPERATIVE))})\b)[a-z']+"
_FREE = rf"(?:{_FREE_WORD}(?: {_FREE_WORD}){{0,3}})"
_NAME = rf"(?P<name>{_FREE})"
_THINGS = rf"(?: (?P<things>{_FREE}))?"
_PEOPLE = rf"(?: (?P<people>{_FREE}))?"
_WHERE = r"(?: (?:in|on|at|inside) (?P<where>[a-z']+(?: [a-z']+){0,3}))?"
_LOSE = (
    r"(?:gives?|gave|gives? away|gave away|loses|lost|eats|ate|spends|spent|sells|sold|uses"
    r"|used|donates|donated|breaks|broke|drops|dropped|throws away|threw away|gives? back"
    r"|gave back|lends|lent|removes|removed|takes? out|took out)"
)
_GAIN = (
    r"(?:gets|got|buys|bought|finds|found|receives|received|earns|earned|collects|collected"
    r"|picks|picked|adds|added|wins|won|makes|made|catches|caught|is given|was given|borrows"
    r"|borrowed|saves|saved)"
)
_START = r"(?:has|had|have|owns|owned|holds|held|keeps|kept|starts with|started with|begins with|began with|collected|baked|bought|picked|caught|made|saved)"  # noqa: E501


@dataclass(frozen=True)
class _Clause:
    """One clause form: its pattern, what it does to the running count, and its role."""

    pattern: re.Pattern[str]
    role: str  # "start", "change", "question"
    operation: str = ""  # for a change: the operator; a start with two numbers multiplies


def _clause(pattern: str, role: str, operation: str = "") -> _Clause:
    return _Clause(re.compile(pattern), role, operation)


_CLAUSES = (
    _clause(
        rf"{_NAME} {_START} {_NUM} (?P<boxes>{_FREE}) (?:with|of|that each (?:have|hold|contain)|each (?:with|holding|containing)) {_NUM2}{_THINGS}(?: (?:each|in each|apiece))?",
        "start",
        "*",
    ),  # noqa: E501
    _clause(
        rf"there (?:are|were) {_NUM} (?P<boxes>{_FREE}) (?:with|of|each (?:with|holding|containing)) {_NUM2}{_THINGS}(?: (?:each|in each|apiece))?",
        "start",
        "*",
    ),  # noqa: E501
    _clause(
        rf"{_NAME} (?:earns|makes|gets|is paid|was paid) {_NUM}{_THINGS} (?:an|a|per|each) (?P<unit>hour|day|week) (?:and|,)(?: (?:he|she|they|[a-z]+))? (?:works|worked|work) {_NUM2} (?P=unit)s?",
        "start",
        "*",
    ),  # noqa: E501
    _clause(
        rf"{_NAME} (?:shares|shared|splits|split|divides|divided) {_NUM}{_THINGS} (?:equally )?(?:among|between) {_NUM2}{_PEOPLE}",
        "start",
        "/",
    ),  # noqa: E501
    _clause(rf"{_NAME} {_START} {_NUM}{_THINGS}{_WHERE}", "start"),
    _clause(rf"there (?:are|were|is|was) {_NUM}{_THINGS}{_WHERE}", "start"),
    _clause(
        rf"(?:then |later |after that )?(?:{_NAME} )?{_LOSE} {_NUM}{_THINGS}(?: (?:to|from) (?P<other>{_FREE}))?",
        "change",
        "-",
    ),  # noqa: E501
    _clause(
        rf"(?:then |later |after that )?(?:{_NAME} )?{_GAIN} {_NUM}(?: more)?{_THINGS}(?: (?:from|at) (?P<other>{_FREE}))?",
        "change",
        "+",
    ),  # noqa: E501
    _clause(
        rf"(?:then )?{_NUM} more{_THINGS} (?:join|joined|arrive|arrived|come|came|are added|were added|get on|got on)",
        "change",
        "+",
    ),  # noqa: E501
    _clause(
        rf"how many{_THINGS} (?:does|do|did|will) {_NAME} (?:have|has)(?: (?:now|left|in total|altogether|then))?",
        "question",
    ),  # noqa: E501
    _clause(
        rf"how many{_THINGS} (?:are|were|is) (?:there|left)(?: (?:now|left|in total|altogether))?{_WHERE}",
        "question",
    ),  # noqa: E501
    _clause(
        rf"how many{_THINGS} (?:are|were) there{_WHERE}(?: (?:now|in total|altogether))?",
        "question",
    ),  # noqa: E501
    _clause(
        rf"how many{_THINGS} (?:does|do|did|will) each(?: [a-z]+)? (?:get|receive|have)", "question"
    ),  # noqa: E501
    _clause(
        rf"how much (?:money )?(?:does|did|will) {_NAME} (?:earn|make|get)(?: (?:in total|altogether))?",
        "question",
    ),  # noqa: E501
    _clause(rf"how much (?:money )?(?:does|did|will) {_NAME} have(?: (?:now|left))?", "question"),  # noqa: E501
)
# Sentence ends, and "and" where a new clause begins: before a number, a pronoun or a verb of
# change ("has 4 apples and gets 3 more", "has 1200 students and 350 more join").
_SPLIT = re.compile(
    rf"[.?!;]+\s*|,? and (?=(?:then |later )?(?:he |she |they |it |\d|{_LOSE} |{_GAIN} ))"
)


def read_word_problem(question: str) -> Reading:
    """The arithmetic a plain word problem asks for; `ToolRefusal` unless every clause is read.

    >>> read_word_problem("Tom had 18 marbles. He lost five of them.  How many marbles does Tom have left?").understood
    '18 - 5'
    """
    text = normalise(question)
    spans: list[tuple[int, int]] = []
    parts: list[str] = []
    asked = False
    for start, end in _sentences(text):
        clause, match = _match(text[start:end])
        spans.append((start, end))
        if clause.role == "question":
            asked = True
            continue
        if asked:
            raise ToolRefusal("the story goes on after its question")
        parts.append(_apply(clause, match, first=not parts))
    if not asked:
        raise ToolRefusal("found no question about the count ('how many ...?')")
    if not parts:
        raise ToolRefusal("the question has no numbers to compute with")
    # Changes only add or subtract after the start, so the usual precedence reads in story order.
    expression = " ".join(parts)
    return require_whole(Reading(text, expression, spans=tuple(spans)))


def _sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence or clause, without its closing marks."""
    bounds, start = [], 0
    for match in _SPLIT.finditer(text):
        if match.start() > start:
            bounds.append((start, match.start()))
        start = match.end()
    if start < len(text):
        bounds.append((start, len(text)))
    return bounds


def _match(sentence: str) -> tuple[_Clause, re.Match[str]]:
    """The one clause `sentence` matches whole, with free slots free of operative words."""
    found = []
    for clause in _CLAUSES:
        match = clause.pattern.fullmatch(sentence.strip(" ,"))
        if match and _slots_free(match):
            found.append((clause, match))
    if not found:
        raise ToolRefusal(f"cannot read {sentence!r} as part of a word problem")
    values = {
        (clause.role, clause.operation, match.groupdict().get("n")) for clause, match in found
    }
    if len(values) > 1:
        raise ToolRefusal(f"{sentence!r} reads {len(values)} ways")
    return found[0]


def _slots_free(match: re.Match[str]) -> bool:
    """No slot word is operative: a clause may not swallow what changes the arithmetic."""
    for slot in ("name", "things", "people", "where", "boxes", "other"):
        if slot not in match.re.groupindex or match.group(slot) is None:
            continue
        if any(word in OPERATIVE for word in match.group(slot).split()):
            return False
    name = match.group("name") if "name" in match.re.groupindex else None
    return not (name and name.split()[0] in {"how", "what", "there"})


def _apply(clause: _Clause, match: re.Match[str], *, first: bool) -> str:
    n = match.group("n")
    if clause.role == "start":
        if not first:
            raise ToolRefusal("the story starts a second count; it asks about two things")
        if clause.operation:
            return f"{n} {clause.operation} {match.group('m')}"
        return n
    if first:
        raise ToolRefusal("the story changes a count it never started")
    return f"{clause.operation} {n}"
