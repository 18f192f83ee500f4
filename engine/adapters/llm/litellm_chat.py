"""The LLM port over litellm: any provider by model string, the in-process model included.

`LiteLLMChat("local/smollm2")` (after `register_local_provider()`), `LiteLLMChat("openai/gpt-4o")`
and `LiteLLMChat("ollama/qwen2.5", api_base=...)` take the same path. The adapter only
translates: the request into `litellm.completion` arguments, the response into `LLMResponse`,
and every failure into an `LLMError` subclass. Retry and budget are wrappers (`budget.py`,
`structured.py`).
"""

import re
import time
from collections.abc import Callable, Iterator, Mapping
from types import SimpleNamespace
from typing import Any

from engine.adapters.llm.litellm_runtime import load_litellm
from engine.domain.records import LLMRequest, LLMResponse
from engine.errors import LLMError, LLMOutputError, LLMTimeoutError, LLMUnavailableError

__all__ = ["LiteLLMChat"]

# litellm exception class names -> what the caller can do about it. Matched against the whole
# MRO (litellm's classes derive from openai's), so the order of the checks in `_translate`
# matters: a timeout before a connection error, a rejected request before the generic APIError.
_TIMEOUT = ("Timeout", "APITimeoutError")
_REQUEST_REJECTED = (
    "BadRequestError",  # includes context window, content policy, unsupported params
    "UnprocessableEntityError",
    "APIResponseValidationError",
)
_UNAVAILABLE = (
    "APIConnectionError",
    "ServiceUnavailableError",
    "InternalServerError",
    "BadGatewayError",
    "RateLimitError",
    "AuthenticationError",
    "PermissionDeniedError",
    "NotFoundError",
    "APIError",
)
_MESSAGE_LIMIT = 300


class LiteLLMChat:
    """Implements the LLM port with `litellm.completion` for one model string.

    `max_retries` defaults to 0 so that an unreachable provider fails within milliseconds; the
    caller decides whether to retry. `extra_params` go to litellm unchanged (provider-specific
    options). The API key is never logged, shown in `repr` or copied into an error message.
    """

    def __init__(
        self,
        model: str,
        *,
        api_base: str | None = None,
        api_key: str | None = None,
        max_retries: int = 0,
        extra_params: Mapping[str, Any] | None = None,
    ) -> None:
        if not model or "/" not in model:
            raise LLMUnavailableError(
                f"model {model!r} names no provider: use provider/model, e.g. local/smollm2 "
                "or openai/gpt-4o-mini"
            )
        self.model = model
        self.api_base = api_base
        self._api_key = api_key
        self._max_retries = max_retries
        self._extra_params = dict(extra_params or {})

    def __repr__(self) -> str:
        return f"LiteLLMChat(model={self.model!r}, api_base={self.api_base!r})"

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Send one chat completion; raise only `LLMError` subclasses."""
        litellm = load_litellm()
        started = time.perf_counter()
        try:
            response = litellm.completion(**self._arguments(request))
        except Exception as exc:  # every provider error becomes an LLMError
            error = self._translate(exc, request)
            if self._leaks_key(exc):
                raise error from None  # the original's message carries the key: drop it
            raise error from exc
        seconds = time.perf_counter() - started
        return self._response(litellm, request, response, seconds)

    def stream(self, request: LLMRequest, on_text: Callable[[str], None]) -> LLMResponse:
        """`complete` with `stream=True`: each delta goes to `on_text` as it arrives.

        Usage comes from the stream's last chunk (`include_usage`), or from litellm's tokenizer
        estimate where a provider sends none. A failure mid-stream is an `LLMError` like any
        other; an exception from `on_text` is the caller's and passes unchanged.
        """
        litellm = load_litellm()
        started = time.perf_counter()
        pieces: list[str] = []
        usage: Any = None
        finish_reason: object = None
        model: object = None
        try:
            chunks = litellm.completion(
                **self._arguments(request),
                stream=True,
                stream_options={"include_usage": True},
            )
            try:
                for chunk in chunks:
                    usage = getattr(chunk, "usage", None) or usage
                    model = getattr(chunk, "model", None) or model
                    for choice in getattr(chunk, "choices", None) or ():
                        finish_reason = getattr(choice, "finish_reason", None) or finish_reason
                        text = getattr(getattr(choice, "delta", None), "content", None)
                        if isinstance(text, str) and text:
                            pieces.append(text)
                            _deliver(on_text, text)
            finally:  # a stream left midway releases its connection (or local model) now
                close = getattr(chunks, "close", None)
                if callable(close):
                    close()
        except _SinkError as failure:
            raise failure.error from None  # the caller's own exception, as it was raised
        except Exception as exc:  # every provider error becomes an LLMError
            error = self._translate(exc, request)
            if self._leaks_key(exc):
                raise error from None
            raise error from exc
        seconds = time.perf_counter() - started
        # The joined stream, shaped as a plain response, takes the same accounting path.
        whole = SimpleNamespace(
            choices=[
                SimpleNamespace(
                    message=SimpleNamespace(content="".join(pieces)),
                    finish_reason=finish_reason,
                )
            ],
            usage=usage,
            model=model,
            # In-process generation costs nothing; a hosted model's price is looked up as usual.
            _hidden_params={"response_cost": 0.0} if self.model.startswith("local/") else {},
        )
        return self._response(litellm, request, whole, seconds)

    def _arguments(self, request: LLMRequest) -> dict[str, Any]:
        arguments: dict[str, Any] = {
            **self._extra_params,
            "model": self.model,
            "messages": _plain(request),
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "timeout": request.timeout_s,
            "max_retries": self._max_retries,
            # A provider that lacks an option (seed, say) drops it instead of failing the call.
            "drop_params": True,
        }
        if request.seed is not None:
            arguments["seed"] = request.seed
        if request.json_schema is not None:
            arguments["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": re.sub(r"[^a-zA-Z0-9_-]", "_", request.purpose) or "output",
                    "schema": dict(request.json_schema),
                },
            }
        if self.api_base is not None:
            arguments["api_base"] = self.api_base
        if self._api_key is not None:
            arguments["api_key"] = self._api_key
        return arguments

    def _response(
        self, litellm: Any, request: LLMRequest, response: Any, seconds: float
    ) -> LLMResponse:
        try:
            choice = response.choices[0]
            text = choice.message.content
        except (AttributeError, IndexError, TypeError) as exc:
            raise LLMOutputError(f"{self.model} returned a response without a message") from exc
        if not isinstance(text, str):
            raise LLMOutputError(
                f"{self.model} returned no text (finish_reason={choice.finish_reason!r})"
            )
        usage = getattr(response, "usage", None)
        prompt_tokens = getattr(usage, "prompt_tokens", None)
        completion_tokens = getattr(usage, "completion_tokens", None)
        if not isinstance(prompt_tokens, int) or not isinstance(completion_tokens, int):
            # Some providers omit usage; litellm's tokenizer estimate keeps budgets honest.
            prompt_tokens = litellm.token_counter(model=self.model, messages=_plain(request))
            completion_tokens = litellm.token_counter(model=self.model, text=text)
        return LLMResponse(
            text=text,
            model=str(getattr(response, "model", None) or self.model),
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            seconds=seconds,
            cost_usd=self._cost(litellm, response),
            finish_reason=_finish_reason(choice),
        )

    def _cost(self, litellm: Any, response: Any) -> float | None:
        hidden = getattr(response, "_hidden_params", None) or {}
        known = hidden.get("response_cost")
        if isinstance(known, int | float) and not isinstance(known, bool):
            return float(known)
        try:
            cost = litellm.completion_cost(completion_response=response, model=self.model)
        except Exception:  # litellm raises assorted errors for unpriced models
            return None
        return float(cost) if isinstance(cost, int | float) else None

    def _translate(self, exc: Exception, request: LLMRequest) -> LLMError:
        for link in _chain(exc):
            if isinstance(link, LLMError):  # raised by our own local provider inside litellm
                try:
                    return type(link)(self._redact(str(link)))
                except TypeError:  # a subclass with another constructor: keep the family
                    return LLMError(self._redact(str(link)))
        kinds = {cls.__name__ for cls in type(exc).__mro__}
        detail = self._redact(_first_line(exc))
        if kinds & set(_TIMEOUT):
            return LLMTimeoutError(
                f"{self.model} did not answer within {request.timeout_s:g} s: {detail}"
            )
        if kinds & set(_REQUEST_REJECTED):
            return LLMError(f"{self.model} rejected the request: {detail}")
        if kinds & set(_UNAVAILABLE):
            return LLMUnavailableError(f"{self.model} is unavailable: {detail}")
        return LLMError(f"{self.model} failed ({type(exc).__name__}): {detail}")

    def _leaks_key(self, exc: BaseException) -> bool:
        key = self._api_key
        if not key:
            return False
        return any(key in str(link) for link in _chain(exc))

    def _redact(self, text: str) -> str:
        if self._api_key:
            text = text.replace(self._api_key, "***")
        return text


class _SinkError(Exception):
    """Carries an exception raised by the caller's `on_text` past the provider-error handler."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


def _deliver(on_text: Callable[[str], None], text: str) -> None:
    try:
        on_text(text)
    except Exception as error:
        raise _SinkError(error) from error


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        yield link
        link = link.__cause__ or link.__context__


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines() or [type(exc).__name__]
    line = lines[0]
    return line if len(line) <= _MESSAGE_LIMIT else line[: _MESSAGE_LIMIT - 3] + "..."


def _plain(request: LLMRequest) -> list[dict[str, str]]:
    return [{"role": message.role, "content": message.content} for message in request.messages]


def _finish_reason(choice: Any) -> str | None:
    reason = getattr(choice, "finish_reason", None)
    return reason if isinstance(reason, str) and reason else None
