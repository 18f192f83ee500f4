"""Stage 1, the thinking seed: retrieve passages, then ask the LLM for a short cited brief."""

from engine.domain.ports import LLM
from engine.domain.records import ChatMessage, LLMRequest, Passage
from engine.stages.prompting import DATA_RULE, fence

SEED_SYSTEM = (
    "You write a short brief (at most 4 sentences) of background facts that help answer a "
    "question: facts and methods from the passages. Cite passages by their source in square "
    "brackets. Never answer the question, and never compute or state its result. " + DATA_RULE
)


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
