"""Stage 2, the seed check: cheap and deterministic (no LLM call), so a warm decision stays at
three calls. A weak seed is rebuilt once by the pipeline, then flagged, and never used silently.
"""

from dataclasses import dataclass, field

from engine.core.records import Passage
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
