# ruff: noqa: E501 - a clause of the grammar reads best on one line
"""Arithmetic word problems read sentence by sentence, each sentence matched whole or refused.

A problem is a story about one count and a question about it. Every sentence (split at ". ? !"
and at "and" before a new clause) must match one clause of the grammar below from its first word
to its last. The slots for names and nouns take any words except numbers and the operative words
of `reading.OPERATIVE`, so "gave 10 to each of her 3 friends" cannot hide "each" or a number in a
slot; a name in a later clause must be the story's own (or a pronoun), so a question about
someone else is refused. Then `reading.require_whole` checks that every number was used.

Clauses (N, M numbers; [name], [things] free words):

- start: "[name] has N [things]", "there are N [things] [where]";
- groups: "[name] has N [boxes] with M [things] each", "N [boxes] of M [things]" multiply;
- sharing: "[name] shares N [things] equally among M", "M friends share N [things]" divide;
- a rate: "[name] reads N [things] a day" with "how many ... in M days (a week)?" multiplies,
  converting the time units with pint; "earns N an hour and works M hours" multiplies;
- a price: "[things] cost N each" with "how much do M [things] cost?", or "paid N for M
  [things]" with "how much did each cost?";
- change: "[name] gives away / loses / eats / spends N" subtracts, "[name] gets / buys / finds N
  (more)" and "N more [things] join" add, "N [things] fly away / move away" subtracts;
- the question: "how many [things] does [name] have (now/left)?", "how many are there?",
  "how many does each get?", "how much does [name] earn?".

Why a grammar written here: no kept library parses English word problems into arithmetic (the
general case is the program tool's: the model writes the program). The verbs below are the
grammar's lexicon, not cue words: a sentence either matches a clause whole or the problem is
refused, so a new phrasing costs coverage, never a wrong answer.

>>> read_word_problem("Ann has 4 apples and gets 3 more. How many apples does she have now?").understood
'4 + 3'
>>> read_word_problem("A bus has 30 seats and 12 are empty. How many are taken?")
Traceback (most recent call last):
...
engine.errors.ToolRefusalError: cannot read '12 are empty' as part of a word problem
"""

import re
from dataclasses import dataclass

from engine.adapters.tools.reading import OPERATIVE, Reading, normalise, require_whole
from engine.adapters.tools.unit_libraries import how_many
from engine.errors import ToolRefusalError

__all__ = ["read_word_problem"]

_N = r"(?P<n>\d+(?:\.\d+)?)"
_M = r"(?P<m>\d+(?:\.\d+)?)"
# A name or a noun phrase: one to four words, none of them operative, so that no slot can hide
# a word that changes the arithmetic ("each", "left", "more").
_WORD = rf"(?!(?:{'|'.join(sorted(OPERATIVE))})\b)[a-z']+"
_FREE = rf"(?:{_WORD}(?: {_WORD}){{0,3}})"
_NAME = rf"(?P<name>{_FREE})"
_THINGS = rf"(?: (?P<things>{_FREE}))?"
_OTHERS = rf"(?: (?P<others>{_FREE}))?"
_WHERE = rf"(?: (?:in|on|at|inside|into) (?P<where>{_FREE}))?"
_TIME = r"(?P<unit>second|minute|hour|day|week|month|year)"
_TIME2 = r"(?P<unit2>second|minute|hour|day|week|month|year)s?"
_LOSE = r"(?:gives?|gave|gives? away|gave away|loses|lost|eats|ate|spends|spent|sells|sold|uses|used|donates|donated|breaks|broke|drops|dropped|throws away|threw away|gives? back|gave back|lends|lent|removes|removed|takes? out|took out)"
_GAIN = r"(?:gets|got|buys|bought|finds|found|receives|received|earns|earned|collects|collected|picks|picked|adds|added|wins|won|makes|made|catches|caught|is given|was given|borrows|borrowed|saves|saved)"
_START = r"(?:has|had|have|owns|owned|holds|held|keeps|kept|starts with|started with|begins with|began with|collected|baked|bought|picked|caught|made|saved)"
_AWAY = r"(?:move away|moved away|moves away|fly away|flew away|flies away|fly off|flew off|run away|ran away|go away|went away|went home|go home|get off|got off|drove away|swim away|swam away)"
_PRONOUNS = frozenset({"he", "she", "they", "it", "we", "i", "you", "him", "her", "them"})


@dataclass(frozen=True)
class _Clause:
    """One clause form: its pattern, its role, and what it contributes.

    A start's `template` names its numbers ("{n} * {m}") and `fits` the question kind it can
    answer; a change's template is its operation ("- {n}"); a question's `fits` is its kind.
    """

    pattern: re.Pattern[str]
    role: str  # "start", "change" or "question"
    template: str = ""
    fits: str = "count"


def _clause(pattern: str, role: str, template: str = "", fits: str = "count") -> _Clause:
    return _Clause(re.compile(pattern), role, template, fits)


_CLAUSES = (
    _clause(
        rf"{_NAME} {_START} {_N} (?P<boxes>{_FREE}) (?:with|of|that each (?:have|hold|contain)|each (?:with|holding|containing)) {_M}{_THINGS}(?: (?:each|apiece|in each(?: {_WORD})?|per {_WORD}))?",
        "start",
        "{n} * {m}",
    ),
    _clause(
        rf"there (?:are|were) {_N} (?P<boxes>{_FREE}) (?:with|of|each (?:with|holding|containing)) {_M}{_THINGS}(?: (?:each|apiece|in each(?: {_WORD})?|per {_WORD}))?",
        "start",
        "{n} * {m}",
    ),
    _clause(
        rf"{_NAME} (?:has|had) {_N} (?P<boxes>{_FREE}) and each (?P<box>{_WORD}) (?:has|holds|contains|seats|fits|carries) {_M}{_THINGS}",
        "start",
        "{n} * {m}",
    ),
    _clause(
        rf"{_NAME} (?:earns|makes|gets|is paid|was paid) {_N}{_THINGS} (?:an|a|per|each) {_TIME} (?:and|,)(?: (?:he|she|they))? (?:works|worked|work) {_M} (?P=unit)s?",
        "start",
        "{n} * {m}",
    ),
    _clause(
        rf"{_NAME} (?:shares|shared|splits|split|divides|divided) {_N}{_THINGS} (?:equally )?(?:among|between) {_M}{_OTHERS}",
        "start",
        "{n} / {m}",
        "each",
    ),
    _clause(
        rf"{_M}{_OTHERS} (?:share|shared|split) {_N}{_THINGS}(?: equally)?",
        "start",
        "{n} / {m}",
        "each",
    ),
    _clause(
        rf"{_NAME} (?:paid|pays|spent|spends) {_N}{_OTHERS} (?:for|on) {_M}{_THINGS}",
        "start",
        "{n} / {m}",
        "each",
    ),
    _clause(
        rf"(?:the )?(?P<things>{_FREE}) (?:cost|costs) {_N}{_OTHERS} (?:each|apiece)",
        "start",
        "{n}",
        "price",
    ),
    _clause(
        rf"{_NAME} (?!(?:has|had|have|is|was|are|were)\b)(?P<verb>[a-z]+) {_N}{_THINGS} (?:a|an|per|each|every) {_TIME}",
        "start",
        "{n}",
        "rate",
    ),
    _clause(rf"{_NAME} {_START} {_N}{_THINGS}{_WHERE}", "start", "{n}"),
    _clause(rf"there (?:are|were|is|was) {_N}{_THINGS}{_WHERE}", "start", "{n}"),
    _clause(
        rf"(?:then |later |after that )?(?:{_NAME} )?{_LOSE} {_N}{_THINGS}(?: (?:to|from) (?P<others>{_FREE}))?",
        "change",
        "- {n}",
    ),
    _clause(
        rf"(?:then |later |after that )?(?:{_NAME} )?{_GAIN} {_N}(?: more)?{_THINGS}(?: (?:from|at) (?P<others>{_FREE}))?",
        "change",
        "+ {n}",
    ),
    _clause(
        rf"(?:then )?{_N} more{_THINGS} (?:join|joined|arrive|arrived|come|came|are added|were added|get on|got on)",
        "change",
        "+ {n}",
    ),
    _clause(rf"(?:then )?{_N}{_THINGS} {_AWAY}", "change", "- {n}"),
    _clause(
        rf"how many{_THINGS} (?:does|do|did|will) {_NAME} (?:have|has)(?: (?:now|left|in total|altogether|then))?",
        "question",
    ),
    _clause(
        rf"how many{_THINGS} (?:are|were|is) (?:there|left)(?: (?:now|left|in total|altogether))?{_WHERE}",
        "question",
    ),
    _clause(
        rf"how many{_THINGS} (?:are|were) there{_WHERE}(?: (?:now|in total|altogether))?",
        "question",
    ),
    _clause(
        rf"how many{_THINGS} (?:are|is) (?:still )?(?:in|on|at) (?P<where>{_FREE})(?: now)?",
        "question",
    ),
    _clause(
        rf"how many{_THINGS} can {_NAME} (?:seat|hold|carry|fit|take)(?: in total| altogether)?",
        "question",
    ),
    _clause(
        rf"how many{_THINGS} (?:does|do|did|will) each(?: {_WORD})? (?:get|receive|have)",
        "question",
        fits="each",
    ),
    _clause(
        rf"how much (?:did|does|do|was|is) (?:each|1|a|an|one)(?: {_WORD})? (?:cost|costs|worth)",
        "question",
        fits="each",
    ),
    _clause(
        rf"how much (?:money )?(?:does|did|will) {_NAME} (?:earn|make|get)(?: (?:in total|altogether))?",
        "question",
    ),
    _clause(rf"how much (?:money )?(?:does|did|will) {_NAME} have(?: (?:now|left))?", "question"),
    _clause(
        rf"how (?:much|many{_THINGS}) (?:do|does|would|will) {_M}{_OTHERS} cost",
        "question",
        fits="price",
    ),
    _clause(
        rf"how many{_THINGS} (?:does|do|did|can|will|could) {_NAME} (?P<verb>[a-z]+) (?:in|after|over|during) (?:{_M}|a|an|1|one) {_TIME2}",
        "question",
        fits="rate",
    ),
    _clause(
        rf"how (?:much|many{_THINGS}) (?:has|have|will) {_NAME} (?P<verb>[a-z]+) (?:in|after|over) (?:{_M}|a|an|1|one) {_TIME2}",
        "question",
        fits="rate",
    ),
)
# Sentence ends, and "and" where a new clause begins: before a number, a pronoun or a verb of
# change ("has 4 apples and gets 3 more", "has 1200 students and 350 more join").
_SPLIT = re.compile(
    rf"[.?!;]+(?!\d)\s*|,? and (?=(?:then |later )?(?:he |she |they |it |\d|{_LOSE} |{_GAIN} ))"
)


@dataclass(frozen=True)
class _Read:
    clause: _Clause
    match: re.Match[str]

    def group(self, name: str) -> str | None:
        return self.match.groupdict().get(name)


def read_word_problem(question: str) -> Reading:
    """The arithmetic a plain word problem asks for; `ToolRefusalError` unless every clause is read.

    >>> read_word_problem("Tom had 18 marbles. He lost five of them.  How many marbles does Tom have left?").understood
    '18 - 5'
    >>> read_word_problem("Kim reads 20 pages a day. How many pages does she read in a week?").understood
    '20 * 7'
    """
    text = normalise(question)
    spans: list[tuple[int, int]] = []
    story: list[_Read] = []
    asked: _Read | None = None
    for start, end in _sentences(text):
        read = _match(text[start:end], first=not spans)
        spans.append((start, end))
        if asked is not None:
            raise ToolRefusalError("the story goes on after its question")
        if read.clause.role == "question":
            asked = read
        else:
            story.append(read)
    if asked is None:
        raise ToolRefusalError("found no question about the count ('how many ...?')")
    expression = _expression(story, asked)
    return require_whole(Reading(text, expression, spans=tuple(spans)))


def _expression(story: list[_Read], asked: _Read) -> str:
    if not story or story[0].clause.role != "start":
        raise ToolRefusalError("the story changes a count it never started")
    if any(read.clause.role == "start" for read in story[1:]):
        raise ToolRefusalError("the story starts a second count; it asks about two things")
    start = story[0]
    if start.clause.fits != asked.clause.fits:
        raise ToolRefusalError(
            f"the question asks for a {asked.clause.fits}, the story gives a {start.clause.fits}"
        )
    _same_subject(start, [*story[1:], asked])
    numbers = {"n": start.group("n"), "m": start.group("m")}
    if asked.clause.fits in ("rate", "price"):
        if len(story) > 1:
            raise ToolRefusalError("a rate or a price with changes is two questions")
        return f"{numbers['n']} * {_periods(start, asked)}"
    parts = [start.clause.template.format(**numbers)]
    parts += [read.clause.template.format(n=read.group("n")) for read in story[1:]]
    if len(parts) > 1 and start.clause.fits != "count":
        raise ToolRefusalError("a share with changes is two questions")
    # Changes only add or subtract after the start, so the usual precedence reads in story order.
    return " ".join(parts)


def _periods(start: _Read, asked: _Read) -> str:
    """How many of the start's units the question's span is: "in a week" at "a day" is 7."""
    count = asked.group("m") or "1"
    if asked.clause.fits == "price":
        return count
    if start.group("verb") != asked.group("verb") and not _same_verb(
        start.group("verb"), asked.group("verb")
    ):
        raise ToolRefusalError("the question asks about another action than the story's rate")
    per, span = start.group("unit"), asked.group("unit2")
    if per is None or span is None:
        raise ToolRefusalError("the rate has no time unit")
    if per == span:
        return count
    factor = how_many(per, span)
    if not float(factor).is_integer():
        raise ToolRefusalError(f"a {span} is not a whole number of {per}s")
    return f"{count} * {int(factor)}" if count != "1" else str(int(factor))


def _same_verb(story: str | None, asked: str | None) -> bool:
    """ "reads" in the story and "read" in the question are one verb (the question's base form)."""
    if story is None or asked is None:
        return False
    return story in (asked + "s", asked + "es", asked[:-1] + "ies" if asked.endswith("y") else "")


def _same_subject(start: _Read, later: list[_Read]) -> None:
    """Later clauses speak of the story's subject: by its name, or by a pronoun."""
    subject = _bare(start.group("name"))
    for read in later:
        name = _bare(read.group("name"))
        if name is None or name in _PRONOUNS or name == subject:
            continue
        raise ToolRefusalError(f"{name!r} is not the story's subject ({subject or 'none named'})")


def _bare(name: str | None) -> str | None:
    """A name without its article: "a van" and "the van" are one subject."""
    return re.sub(r"^(?:a|an|the) ", "", name) if name else name


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


def _match(sentence: str, *, first: bool) -> _Read:
    """The one clause `sentence` matches whole (the first, when several read it the same).

    A story's first sentence cannot change a count that does not exist yet, so there a change
    reading ("saves 2 dollars" of "Kai saves 2 dollars a day") gives way to a start.
    """
    found = [
        _Read(clause, match)
        for clause in _CLAUSES
        if (match := clause.pattern.fullmatch(sentence.strip(" ,"))) is not None
        and not (first and clause.role == "change")
    ]
    if not found:
        raise ToolRefusalError(f"cannot read {sentence!r} as part of a word problem")
    readings = {
        (r.clause.role, r.clause.template, r.clause.fits, r.group("n"), r.group("m")) for r in found
    }
    if len(readings) > 1:
        raise ToolRefusalError(f"{sentence!r} reads {len(readings)} ways")
    return found[0]
