"""The model's reading of a question's options, where the rule reader refused (one call).

`engine.domain.option_extraction` holds the prompt, the schema, the gate and the guards; this
stage makes the call: one chat call held to the `Extraction` schema (a grammar on the local
model, `response_format` on a hosted one), no retry (a reply that does not validate is a
refusal, and the question is answered in free text as before), and it says what it read, with
the model's own reply, for the trace and the card.
"""

from pydantic import ValidationError

from engine.domain.option_extraction import (
    EXTRACTION_SYSTEM,
    Extraction,
    checked_extraction,
    extraction_prompt,
    option_cue,
)
from engine.domain.options import NoOptions, Options
from engine.domain.ports import LLM
from engine.domain.records import ChatMessage, LLMRequest
from engine.domain.structured import parse_structured, schema_for

__all__ = ["EXTRACTION_MAX_TOKENS", "read_by_model", "worth_a_call"]

# A reply of 26 short options fits; a typical one (a verdict and 2-4 options) is 30-60 tokens,
# and the grammar ends it there.
EXTRACTION_MAX_TOKENS = 320


def read_by_model(
    llm: LLM, question: str, *, timeout_s: float, model: str
) -> tuple[Options | NoOptions, dict[str, object]]:
    """What `llm` reads as the question's options, held by the guards, and the trace's record
    of it (`model`: the catalogue id that read, named on the card). LLM faults pass through."""
    request = LLMRequest(
        messages=(
            ChatMessage("system", EXTRACTION_SYSTEM),
            ChatMessage("user", extraction_prompt(question)),
        ),
        max_tokens=EXTRACTION_MAX_TOKENS,
        json_schema=schema_for(Extraction),
        timeout_s=timeout_s,
        purpose="options",
    )
    reply = llm.complete(request).text
    record: dict[str, object] = {"reader": "model", "model": model, "reply": reply[:600]}
    try:
        extraction = parse_structured(reply, Extraction)
    except ValidationError as error:
        return NoOptions(f"the model's reading did not validate: {error.errors()[0]['msg']}"), (
            record
        )
    return checked_extraction(question, extraction), record


def worth_a_call(question: str) -> str | None:
    """Why the model is asked for `question`'s options (the sign of a written set it shows), or
    None: a question with no such sign, or one that asks for several, pays no call."""
    return option_cue(question)
