"""Schema-constrained LLM calls parsed with pydantic: the pipeline's stand-in for
`engine.llm.structured.ask_structured` until that lands (same shape: messages, model class, one
optional retry, then `LLMOutputError` carrying the raw text).
"""

import json
from collections.abc import Sequence
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from engine.errors import LLMOutputError
from engine.ports import LLM, ChatMessage, LLMRequest

T = TypeVar("T", bound=BaseModel)


def ask_structured(
    llm: LLM,
    messages: Sequence[ChatMessage],
    model_cls: type[T],
    *,
    purpose: str,
    max_tokens: int = 256,
    timeout_s: float = 60.0,
    retries: int = 0,
) -> T:
    """Ask for JSON matching `model_cls`'s schema; validate; retry `retries` times; else raise.

    The retry feeds the validation error back briefly, because a small model that was told what
    was wrong fixes it more often than one asked again blind. The pipeline decides how many
    retries a decision can afford (see `engine.pipeline`).
    """
    schema = model_cls.model_json_schema(by_alias=True)
    conversation = list(messages)
    raw = ""
    problem = ""
    for _attempt in range(retries + 1):
        request = LLMRequest(
            messages=tuple(conversation),
            max_tokens=max_tokens,
            temperature=0.0,
            json_schema=schema,
            timeout_s=timeout_s,
            purpose=purpose,
        )
        raw = llm.complete(request).text
        try:
            return model_cls.model_validate_json(raw)
        except ValidationError as error:
            problem = _summarise(error)
        conversation = [
            *messages,
            ChatMessage("assistant", raw[:500]),
            ChatMessage("user", f"That JSON was invalid ({problem}). Reply with valid JSON only."),
        ]
    raise LLMOutputError(
        f"{purpose} output does not match its schema ({problem}); raw text: {raw[:200]!r}"
    )


def _summarise(error: ValidationError) -> str:
    """First two validation problems, compact: enough for the model and for the trace."""
    parts = []
    for item in error.errors()[:2]:
        where = ".".join(str(part) for part in item["loc"]) or "document"
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts) or json.dumps(str(error))[:200]
