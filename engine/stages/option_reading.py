"""The model's reading of a question's options, where the rule reader refused (1 or 2 calls).

`engine.domain.option_extraction` holds the prompts, the schemas, the gate and the guards; this
stage makes the calls: one chat call held to the `Extraction` schema (a grammar on the local
model, `response_format` on a hosted one), and where its reading passes every guard, a second
held to `Check`, in which the model, asked differently, says whether the reading holds. No
retry: a reply that does not validate is a refusal, and the question is answered in free text
as before. It says what it read, with the model's own replies, for the trace and the card.
"""

from pydantic import BaseModel, ValidationError

from engine.domain.option_extraction import (
    CHECK_SYSTEM,
    EXTRACTION_SYSTEM,
    Check,
    Extraction,
    check_prompt,
    checked_extraction,
    extraction_prompt,
    option_cue,
)
from engine.domain.options import NoOptions, Options
from engine.domain.ports import LLM
from engine.domain.records import ChatMessage, LLMRequest
from engine.domain.structured import parse_structured, schema_for

__all__ = ["EXTRACTION_MAX_TOKENS", "READING_CALLS", "read_by_model", "worth_a_call"]

READING_CALLS = 2  # the reading, and the check of a reading that passed the guards

# A reply of 26 short options fits; a typical one (a verdict and 2-4 options) is 30-60 tokens,
# and the grammar ends it there.
EXTRACTION_MAX_TOKENS = 320


def read_by_model(
    llm: LLM, question: str, *, timeout_s: float, model: str
) -> tuple[Options | NoOptions, dict[str, object]]:
    """What `llm` reads as the question's options, held by the guards and by the model's own
    check, and the trace's record of both replies (`model`: the catalogue id that read, named
    on the card). Two calls where the first reading passes the guards, else one. LLM faults
    pass through."""
    reply = _ask(llm, EXTRACTION_SYSTEM, extraction_prompt(question), Extraction, timeout_s)
    record: dict[str, object] = {"reader": "model", "model": model, "reply": reply[:600]}
    try:
        extraction = parse_structured(reply, Extraction)
    except ValidationError as error:
        why = f"the model's reading did not validate: {error.errors()[0]['msg']}"
        return NoOptions(why), record
    reading = checked_extraction(question, extraction)
    if isinstance(reading, NoOptions):
        return reading, record
    check = _ask(llm, CHECK_SYSTEM, check_prompt(question, reading.texts), Check, timeout_s)
    record["check"] = check[:200]
    try:
        holds = parse_structured(check, Check).holds
    except ValidationError:
        holds = False
    if not holds:
        return NoOptions("the model's check of its reading did not hold"), record
    return reading, record


def _ask(llm: LLM, system: str, user: str, schema: type[BaseModel], timeout_s: float) -> str:
    request = LLMRequest(
        messages=(ChatMessage("system", system), ChatMessage("user", user)),
        max_tokens=EXTRACTION_MAX_TOKENS,
        json_schema=schema_for(schema),
        timeout_s=timeout_s,
        purpose="options",
    )
    return llm.complete(request).text


def worth_a_call(question: str) -> str | None:
    """Why the model is asked for `question`'s options (the sign of a written set it shows), or
    None: a question with no such sign, or one that asks for several, pays no call."""
    return option_cue(question)
