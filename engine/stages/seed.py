"""Stage 1, the thinking seed: retrieve passages, then ask the LLM for a short cited brief."""

import re

from engine.core.ports import LLM
from engine.core.records import ChatMessage, LLMRequest, Passage
from engine.stages.prompting import DATA_RULE, fence

_STOPWORD_TEXT = (
    "a an and are as at be by can could did do does for from has have how i if in into is it "
    "its me my of on or our should so than that the their them then there these this to was "
    "we were what when where which who whom why will with would you your about after before "
    "many much give tell explain please "
)
# Kept as text: far easier to read and extend than a 70-line list literal.
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_WORD = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*")

SEED_SYSTEM = (
    "You write a short brief (at most 4 sentences) of background facts that help answer a "
    "question: facts and methods from the passages. Cite passages by their source in square "
    "brackets. Never answer the question, and never compute or state its result. " + DATA_RULE
)


def content_terms(text: str) -> list[str]:
    """The searchable words of `text`: lower-cased, no stopwords, no one-letter words, in order.

    >>> content_terms("How many days are in a leap year?")
    ['days', 'leap', 'year']
    """
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        if len(word) > 1 and word not in STOPWORDS:
            seen.setdefault(word, None)
    return list(seen)


def rephrase_for_search(query: str) -> str:
    """The rebuild's second query: content words only, which keyword backends match better."""
    return " ".join(content_terms(query))


def brief_messages(query: str, passages: list[Passage]) -> tuple[ChatMessage, ...]:
    fenced = "\n".join(fence("passage", p.text, source=p.source) for p in passages)
    user = f"Question: {query}\n\nPassages:\n{fenced}\n\nWrite the brief."
    return (ChatMessage("system", SEED_SYSTEM), ChatMessage("user", user))


def write_brief(
    llm: LLM, query: str, passages: list[Passage], *, max_tokens: int, timeout_s: float
) -> str:
    """One LLM call: a short brief on the query from the passages (which are fenced as data)."""
    request = LLMRequest(
        messages=brief_messages(query, passages),
        max_tokens=max_tokens,
        timeout_s=timeout_s,
        purpose="seed",
    )
    return llm.complete(request).text.strip()
