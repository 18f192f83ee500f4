"""Stage 2, the seed check: cheap and deterministic (no LLM call), so a warm decision stays at
three calls. A weak seed is rebuilt once by the pipeline, then flagged, and never used silently.
"""

import re
from dataclasses import dataclass, field

from engine.domain.records import Passage
from engine.domain.stopping import repetition_start
from retrieval.query import content_words

MIN_PASSAGE_RELEVANCE = 0.34  # a passage must cover about a third of the query's terms
MAX_BRIEF_CHARS = 1500


@dataclass(frozen=True)
class SeedVerdict:
    """The check's result: passing passages, a score in [0, 1], and why it failed if it did."""

    ok: bool
    score: float
    relevant: list[Passage] = field(default_factory=list)
    relevance: dict[str, float] = field(default_factory=dict)  # source -> share of terms covered
    reasons: list[str] = field(default_factory=list)


def _stem(word: str) -> str:
    # Crude plural folding: enough that "years" matches "year" in a relevance check.
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def passage_relevance(query_terms: list[str], passage: Passage) -> float:
    """Share of the query's content terms that occur in the passage (title included)."""
    if not query_terms:
        return 0.0
    words = {_stem(word) for word in content_words(passage.title + " " + passage.text, limit=None)}
    return sum(_stem(term) in words for term in query_terms) / len(query_terms)


def check_passages(query: str, passages: list[Passage]) -> SeedVerdict:
    """Is there at least one passage relevant enough to build a seed on?

    >>> good = Passage("A leap year has 366 days.", "notes/calendar.md")
    >>> check_passages("How many days are in a leap year?", [good]).ok
    True
    >>> check_passages("How many days are in a leap year?", [Passage("Cats purr.", "c.md")]).ok
    False
    """
    terms = content_words(query, limit=None)
    if not terms:
        return SeedVerdict(False, 0.0, reasons=["the query has no searchable terms"])
    if not passages:
        return SeedVerdict(False, 0.0, reasons=["retrieval returned no passages"])
    relevance = {p.source: passage_relevance(terms, p) for p in passages}
    relevant = [p for p in passages if relevance[p.source] >= MIN_PASSAGE_RELEVANCE]
    score = max(relevance.values())
    if not relevant:
        return SeedVerdict(
            False,
            score,
            relevance=relevance,
            reasons=[
                f"no passage covers {MIN_PASSAGE_RELEVANCE:.0%} of the query terms "
                f"(best {score:.0%})"
            ],
        )
    return SeedVerdict(True, score, relevant=relevant, relevance=relevance)


def check_brief(query: str, brief: str, passages: list[Passage]) -> list[str]:
    """Problems with a written brief (an empty list means it passes)."""
    problems = []
    if not brief.strip():
        problems.append("the brief is empty")
    if len(brief) > MAX_BRIEF_CHARS:
        problems.append(f"the brief is longer than {MAX_BRIEF_CHARS} characters")
    grounding = set(content_words(query, limit=None))
    for passage in passages:
        grounding.update(content_words(passage.text, limit=None))
    brief_terms = content_words(brief, limit=None)
    if brief_terms and not grounding.intersection(brief_terms):
        problems.append("the brief shares no terms with the query or the passages")
    return problems


# A brief informs; it never answers. The small model's briefs often stated a (wrong) result and
# the answer copied it, so a sentence that states an answer is dropped: one that says "the answer
# is" or holds an "Answer:" label, and one that holds a number found neither in the query nor in
# the passages (a computed result, since the brief may only carry what the passages say).
_ANSWER_TALK = re.compile(
    r"\b(?:the (?:final |correct )?answer (?:is|would be|will be)|answer\s*:|so the result is|"
    r"which (?:gives|makes|equals)|the result is)\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_SCAFFOLD = re.compile(r"\b(?:write the brief|passages:|question:)", re.IGNORECASE)


def _numbers(text: str) -> set[str]:
    return {number.replace(",", "") for number in _NUMBER.findall(text)}


def inform_only(query: str, brief: str, passages: list[Passage]) -> tuple[str, list[str]]:
    """The brief without sentences that answer the query; and why each dropped one was dropped.

    >>> passages = [Passage("Addition combines two numbers into their sum.", "add.md")]
    >>> kept, dropped = inform_only("What is 3 + 4?", "Sums add [add.md]. So 3 + 4 = 7.", passages)
    >>> kept, dropped[0][-19:]
    ('Sums add [add.md].', 'nor the passages: 7')
    """
    known = _numbers(query)
    for passage in passages:
        known |= _numbers(passage.text) | _numbers(passage.source)
    kept, dropped = [], []
    for sentence in (part.strip() for part in _SENTENCE.split(brief)):
        if not sentence:
            continue
        if _ANSWER_TALK.search(sentence):
            dropped.append(f"states an answer: {sentence[:80]}")
            continue
        new = sorted(_numbers(sentence) - known)
        if new:
            dropped.append(
                f"states a number found in neither the query nor the passages: "
                f"{', '.join(new)[:80]}"
            )
            continue
        kept.append(sentence)
    return " ".join(kept), dropped


def degeneracy(query: str, brief: str) -> list[str]:
    """Why a generated brief is degenerate (loops, or echoes the prompt); empty if it is not."""
    problems = []
    if repetition_start(brief) is not None:
        problems.append("the brief repeats itself in a loop")
    folded = " ".join(brief.lower().split())
    asked = " ".join(query.lower().split())
    if (len(asked) >= 20 and asked in folded) or _SCAFFOLD.search(brief):
        problems.append("the brief echoes the prompt")
    return problems
