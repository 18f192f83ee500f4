"""The `local` litellm provider: `local/smollm2` or `local//path/model.gguf`, run in-process.

Registered with litellm's `custom_provider_map`, so an in-process model takes exactly the code
path of a hosted one (`LiteLLMChat("local/smollm2")` vs `LiteLLMChat("openai/gpt-4o-mini")`).
Nothing is registered on import: the composition root calls `register_local_provider()`, which
is idempotent.

litellm only routes to handlers that are instances of its `CustomLLM`, and importing litellm
takes seconds; so `LocalProvider` holds the translation as a plain class and the registered
handler is `LocalProvider` mixed with `CustomLLM`, built when registration first imports litellm.
"""

import asyncio
import atexit
import threading
from collections.abc import Iterator, Mapping
from contextlib import closing
from functools import cache
from typing import Any

from engine.adapters.llm.litellm_runtime import load_litellm
from engine.adapters.llm.local_model import LocalModels
from engine.adapters.llm.local_settings import LocalModelSettings
from engine.errors import ConfigError, LLMError

__all__ = ["PROVIDER", "LocalProvider", "register_local_provider"]

PROVIDER = "local"
DEFAULT_TIMEOUT_S = 600.0  # litellm's own default when a caller gives no timeout

_registration_lock = threading.Lock()


class LocalProvider:
    """Translates litellm's custom-provider calls into `LocalModels.generate`."""

    def __init__(self, models: LocalModels) -> None:
        super().__init__()  # CustomLLM's, in the registered mixture
        self.models = models

    def completion(
        self,
        model: str,
        messages: list[Mapping[str, Any]],
        model_response: Any,
        optional_params: Mapping[str, Any],
        timeout: object = None,
        **_litellm_context: Any,  # api_base, logging_obj, encoding, ...: nothing a local model uses
    ) -> Any:
        """Generate with the local model and fill litellm's `ModelResponse` in place."""
        generation = self.models.generate(
            model,
            [_text_message(message) for message in messages],
            max_tokens=_max_tokens(optional_params.get("max_tokens")),
            timeout_s=_seconds(timeout),
            temperature=float(optional_params.get("temperature", 0.0)),
            seed=optional_params.get("seed"),
            json_schema=schema_from_response_format(optional_params.get("response_format")),
            stop=_stop_sequences(optional_params.get("stop")),
        )
        choice = model_response.choices[0]
        choice.message.content = generation.text
        choice.finish_reason = generation.finish_reason
        model_response.model = f"{PROVIDER}/{model}"
        usage_class = load_litellm().Usage
        model_response.usage = usage_class(
            prompt_tokens=generation.prompt_tokens,
            completion_tokens=generation.completion_tokens,
            total_tokens=generation.prompt_tokens + generation.completion_tokens,
        )
        # In-process generation costs no money; litellm's price list cannot know that.
        model_response._hidden_params["response_cost"] = 0.0
        return model_response

    def streaming(
        self,
        model: str,
        messages: list[Mapping[str, Any]],
        optional_params: Mapping[str, Any],
        timeout: object = None,
        **_litellm_context: Any,  # model_response and the rest: a stream fills no response
    ) -> Iterator[dict[str, Any]]:
        """The local model's tokens as litellm's `GenericStreamingChunk`s, usage on the last."""
        if optional_params.get("response_format") is not None:
            raise LLMError("the local provider streams free text only; drop response_format")
        pieces = self.models.stream(
            model,
            [_text_message(message) for message in messages],
            max_tokens=_max_tokens(optional_params.get("max_tokens")),
            timeout_s=_seconds(timeout),
            temperature=float(optional_params.get("temperature", 0.0)),
            seed=optional_params.get("seed"),
            stop=_stop_sequences(optional_params.get("stop")),
        )
        with closing(pieces):  # a stream abandoned midway frees the model now, not at GC
            for piece in pieces:
                if isinstance(piece, str):
                    yield _chunk(piece)
                    continue
                usage = {
                    "prompt_tokens": piece.prompt_tokens,
                    "completion_tokens": piece.completion_tokens,
                    "total_tokens": piece.prompt_tokens + piece.completion_tokens,
                }
                yield _chunk("", finish_reason=piece.finish_reason, usage=usage)

    async def acompletion(self, *args: Any, **kwargs: Any) -> Any:
        """The same generation for `litellm.acompletion`, off the event loop."""
        return await asyncio.to_thread(self.completion, *args, **kwargs)


def _chunk(
    text: str, *, finish_reason: str = "", usage: Mapping[str, int] | None = None
) -> dict[str, Any]:
    return {
        "text": text,
        "is_finished": bool(finish_reason),
        "finish_reason": finish_reason,
        "usage": usage,
        "index": 0,
        "tool_use": None,
    }


def schema_from_response_format(response_format: object) -> Mapping[str, Any] | None:
    """The JSON schema inside an OpenAI- or llama.cpp-style `response_format`, if any.

    >>> schema_from_response_format({"type": "json_schema", "json_schema": {"schema": {}}})
    {}
    >>> schema_from_response_format({"type": "json_object"})
    {'type': 'object'}
    >>> schema_from_response_format(None) is None
    True
    """
    if response_format is None:
        return None
    if not isinstance(response_format, Mapping):
        raise LLMError(f"response_format must be a dict, got {type(response_format).__name__}")
    kind = response_format.get("type")
    if kind == "text":
        return None
    if kind == "json_schema":
        schema = (response_format.get("json_schema") or {}).get("schema")
    elif kind == "json_object":
        schema = response_format.get("schema", {"type": "object"})
    else:
        raise LLMError(
            f"response_format type {kind!r} is not one of text, json_schema, json_object"
        )
    if not isinstance(schema, Mapping):
        raise LLMError(f"response_format carries no JSON schema object: {response_format!r:.200}")
    return schema


def _text_message(message: Mapping[str, Any]) -> dict[str, str]:
    content = message.get("content")
    if not isinstance(content, str):
        raise LLMError(
            f"local models take text messages only; got {type(content).__name__} content "
            f"for role {message.get('role')!r}"
        )
    return {"role": str(message.get("role")), "content": content}


def _max_tokens(value: object) -> int:
    if value is None:
        return 256  # the port's default
    if isinstance(value, bool) or not isinstance(value, int):
        raise LLMError(f"max_tokens must be an integer, got {value!r}")
    return value


def _seconds(timeout: object) -> float:
    if timeout is None:
        return DEFAULT_TIMEOUT_S
    if isinstance(timeout, int | float):
        return float(timeout)
    read = getattr(timeout, "read", None)  # an httpx.Timeout
    return float(read) if isinstance(read, int | float) else DEFAULT_TIMEOUT_S


def _stop_sequences(stop: object) -> tuple[str, ...]:
    if stop is None:
        return ()
    if isinstance(stop, str):
        return (stop,)
    if isinstance(stop, list | tuple) and all(isinstance(item, str) for item in stop):
        return tuple(stop)
    raise LLMError(f"stop must be a string or a list of strings, got {stop!r:.100}")


@cache
def _handler_class(custom_llm_base: type) -> type[LocalProvider]:
    return type("LocalLiteLLMProvider", (LocalProvider, custom_llm_base), {})


def register_local_provider(settings: LocalModelSettings | None = None) -> LocalModels:
    """Route litellm's `local/...` models to this process's `LocalModels`; idempotent.

    Calling again with the same settings returns the registered models (a loaded model stays
    loaded); other settings replace the handler, and models load again under the new settings.
    Raises `ConfigError` if another library already registered a `local` provider.
    """
    settings = settings or LocalModelSettings()
    litellm: Any = load_litellm()
    with _registration_lock:
        others = []
        for item in litellm.custom_provider_map:
            if item["provider"] != PROVIDER:
                others.append(item)
                continue
            handler = item["custom_handler"]
            if not isinstance(handler, LocalProvider):
                raise ConfigError(
                    f"litellm already has a custom provider named {PROVIDER!r} "
                    f"({type(handler).__name__}); ThinkPath's local models need that name"
                )
            if handler.models.settings == settings:
                return handler.models
            handler.models.close()  # replaced below: free its models now
        models = LocalModels(settings)
        # Free llama.cpp memory before interpreter teardown, where Llama.__del__ fails noisily.
        atexit.register(models.close)
        handler = _handler_class(litellm.CustomLLM)(models)
        litellm.custom_provider_map = [*others, {"provider": PROVIDER, "custom_handler": handler}]
        return models
