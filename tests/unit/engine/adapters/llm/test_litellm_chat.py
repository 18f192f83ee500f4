"""LiteLLMChat against a monkeypatched `litellm.completion`: arguments, usage, cost, errors."""

import asyncio
import warnings
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from engine.adapters.llm.litellm_chat import LiteLLMChat
from engine.adapters.llm.litellm_runtime import load_litellm
from engine.domain.records import ChatMessage, LLMRequest
from engine.errors import LLMError, LLMOutputError, LLMTimeoutError, LLMUnavailableError

SECRET = "sk-test-SECRET-4242"
REQUEST = LLMRequest(
    messages=(ChatMessage("system", "Be brief."), ChatMessage("user", "Hi?")),
    max_tokens=20,
    temperature=0.3,
    timeout_s=7.0,
    purpose="rate stage",
    seed=11,
)


def model_response(
    text: str | None = "hello", usage: tuple[int, int] = (12, 3), cost: float | None = None
) -> Any:
    litellm = load_litellm()
    response = litellm.ModelResponse(model="provider-model-v1")
    response.choices[0].message.content = text
    response.usage = litellm.Usage(
        prompt_tokens=usage[0], completion_tokens=usage[1], total_tokens=sum(usage)
    )
    if cost is not None:
        response._hidden_params["response_cost"] = cost
    return response


@pytest.fixture
def fake_completion(monkeypatch: pytest.MonkeyPatch) -> Callable[..., list[dict[str, Any]]]:
    """Install a fake `litellm.completion` that records its calls and answers or raises."""

    def install(answer: Any = None, error: BaseException | None = None) -> list[dict[str, Any]]:
        calls: list[dict[str, Any]] = []

        def completion(**kwargs: Any) -> Any:
            calls.append(kwargs)
            if error is not None:
                raise error
            return answer if answer is not None else model_response()

        monkeypatch.setattr(load_litellm(), "completion", completion)
        return calls

    return install


def test_request_becomes_litellm_arguments(fake_completion: Callable[..., Any]) -> None:
    calls = fake_completion()
    schema = {"type": "object", "properties": {"score": {"enum": [1, 2]}}}
    chat = LiteLLMChat("openai/gpt-4o-mini", api_base="http://example.invalid/v1", api_key=SECRET)
    chat.complete(LLMRequest(**{**REQUEST.__dict__, "json_schema": schema}))
    (call,) = calls
    assert call["model"] == "openai/gpt-4o-mini"
    assert call["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi?"},
    ]
    assert (call["max_tokens"], call["temperature"], call["timeout"], call["seed"]) == (
        20,
        0.3,
        7.0,
        11,
    )
    assert call["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "rate_stage", "schema": schema},
    }
    assert (call["api_base"], call["api_key"], call["max_retries"]) == (
        "http://example.invalid/v1",
        SECRET,
        0,
    )


def test_plain_request_sends_no_schema_and_no_seed(fake_completion: Callable[..., Any]) -> None:
    calls = fake_completion()
    LiteLLMChat("local/smollm2").complete(LLMRequest(messages=(ChatMessage("user", "x"),)))
    assert "response_format" not in calls[0]
    assert "seed" not in calls[0]
    assert "api_key" not in calls[0]


def test_response_reports_text_tokens_model_and_known_cost(
    fake_completion: Callable[..., Any],
) -> None:
    fake_completion(model_response("hi there", (40, 2), cost=0.0021))
    response = LiteLLMChat("openai/gpt-4o-mini").complete(REQUEST)
    assert (response.text, response.prompt_tokens, response.completion_tokens) == (
        "hi there",
        40,
        2,
    )
    assert response.model == "provider-model-v1"
    assert response.cost_usd == 0.0021
    assert response.seconds >= 0.0


def test_unknown_price_is_none(fake_completion: Callable[..., Any]) -> None:
    fake_completion(model_response())
    assert LiteLLMChat("local//tmp/unpriced.gguf").complete(REQUEST).cost_usd is None


def test_missing_usage_is_estimated_not_zero(fake_completion: Callable[..., Any]) -> None:
    message = SimpleNamespace(content="four words of text")
    fake_completion(SimpleNamespace(choices=[SimpleNamespace(message=message)], model="m"))
    response = LiteLLMChat("openai/gpt-4o-mini").complete(REQUEST)
    assert response.prompt_tokens > 0
    assert response.completion_tokens > 0


def test_no_text_is_an_output_error(fake_completion: Callable[..., Any]) -> None:
    fake_completion(model_response(text=None))
    with pytest.raises(LLMOutputError, match="no text"):
        LiteLLMChat("openai/gpt-4o-mini").complete(REQUEST)


def litellm_error(name: str, message: str = "boom") -> BaseException:
    exceptions = load_litellm().exceptions
    error: BaseException = getattr(exceptions, name)(
        message=message, model="m", llm_provider="openai"
    )
    return error


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Timeout", LLMTimeoutError),
        ("APIConnectionError", LLMUnavailableError),
        ("ServiceUnavailableError", LLMUnavailableError),
        ("InternalServerError", LLMUnavailableError),
        ("RateLimitError", LLMUnavailableError),
        ("AuthenticationError", LLMUnavailableError),
        ("NotFoundError", LLMUnavailableError),
        ("ContextWindowExceededError", LLMError),
        ("ContentPolicyViolationError", LLMError),
        ("BadRequestError", LLMError),
    ],
)
def test_provider_errors_become_llm_errors(
    fake_completion: Callable[..., Any], name: str, expected: type[LLMError]
) -> None:
    fake_completion(error=litellm_error(name))
    with pytest.raises(LLMError) as caught:
        LiteLLMChat("openai/gpt-4o-mini").complete(REQUEST)
    assert type(caught.value) is expected
    assert "openai/gpt-4o-mini" in str(caught.value)


def test_any_other_exception_becomes_an_llm_error(fake_completion: Callable[..., Any]) -> None:
    fake_completion(error=RuntimeError("socket exploded"))
    with pytest.raises(LLMError, match=r"RuntimeError.*socket exploded"):
        LiteLLMChat("openai/gpt-4o-mini").complete(REQUEST)


def test_our_own_error_raised_inside_litellm_keeps_its_type(
    fake_completion: Callable[..., Any],
) -> None:
    wrapped = litellm_error("APIConnectionError", "litellm.APIConnectionError: local model busy")
    wrapped.__context__ = LLMTimeoutError("local model passed its 3 s deadline")
    fake_completion(error=wrapped)
    with pytest.raises(LLMTimeoutError, match="passed its 3 s deadline"):
        LiteLLMChat("local/smollm2").complete(REQUEST)


def test_the_api_key_never_appears_in_errors_or_repr(fake_completion: Callable[..., Any]) -> None:
    fake_completion(error=litellm_error("AuthenticationError", f"bad key {SECRET} given"))
    chat = LiteLLMChat("openai/gpt-4o-mini", api_key=SECRET)
    with pytest.raises(LLMUnavailableError) as caught:
        chat.complete(REQUEST)
    assert SECRET not in str(caught.value)
    assert "***" in str(caught.value)
    assert caught.value.__cause__ is None  # the original message held the key: not chained
    assert SECRET not in repr(chat)


def test_a_model_without_provider_is_refused() -> None:
    with pytest.raises(LLMUnavailableError, match="provider/model"):
        LiteLLMChat("smollm2")


@pytest.fixture
def close_litellm_event_loop() -> Iterator[None]:
    """Close the event loop that litellm's service logger makes current and never closes.

    On the openai path litellm calls `asyncio.get_event_loop()` from synchronous code; the loop
    it creates is left open, and when a later `asyncio.run` replaces it, its collection raises
    an unclosed-loop ResourceWarning (an error in this suite) in whatever test runs then.
    """
    yield
    policy = asyncio.get_event_loop_policy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            loop = policy.get_event_loop()
        except RuntimeError:  # an earlier test left no current loop, and none was made: done
            return
    loop.close()
    policy.set_event_loop(None)


@pytest.mark.usefixtures("close_litellm_event_loop")
def test_an_unreachable_provider_fails_fast_as_unavailable() -> None:
    """A closed port on this machine: no internet, and no retries make it quick."""
    chat = LiteLLMChat("openai/gpt-4o-mini", api_base="http://127.0.0.1:9/v1", api_key=SECRET)
    with pytest.raises(LLMUnavailableError, match="unavailable") as caught:
        chat.complete(LLMRequest(messages=(ChatMessage("user", "hi"),), timeout_s=5.0))
    assert SECRET not in str(caught.value)


def chunk(text: str | None, usage: Any = None, finish: str | None = None) -> Any:
    """A streamed chunk shaped as litellm's `ModelResponseStream`."""
    delta = SimpleNamespace(content=text)
    return SimpleNamespace(
        choices=[SimpleNamespace(delta=delta, finish_reason=finish)],
        usage=usage,
        model="provider-model-v1",
    )


def test_a_stream_hands_on_each_delta_and_reads_usage_from_the_last_chunk(
    fake_completion: Callable[..., Any],
) -> None:
    usage = SimpleNamespace(prompt_tokens=12, completion_tokens=3)
    calls = fake_completion(
        iter([chunk("Hel"), chunk(None), chunk("lo"), chunk("!", finish="stop"), chunk("", usage)])
    )
    pieces: list[str] = []
    response = LiteLLMChat("openai/gpt-4o-mini").stream(REQUEST, pieces.append)
    assert pieces == ["Hel", "lo", "!"]
    assert (response.text, response.prompt_tokens, response.completion_tokens) == ("Hello!", 12, 3)
    assert response.model == "provider-model-v1"
    (call,) = calls
    assert call["stream"] is True
    assert call["stream_options"] == {"include_usage": True}


def test_a_stream_without_usage_is_counted_by_litellm_s_tokenizer(
    fake_completion: Callable[..., Any],
) -> None:
    fake_completion(iter([chunk("Hello "), chunk("there")]))
    response = LiteLLMChat("openai/gpt-4o-mini").stream(REQUEST, lambda _: None)
    assert response.text == "Hello there"
    assert response.prompt_tokens > 0
    assert response.completion_tokens > 0


def test_a_provider_failure_mid_stream_is_an_llm_error(
    fake_completion: Callable[..., Any],
) -> None:
    litellm = load_litellm()

    def broken() -> Iterator[Any]:
        yield chunk("Hel")
        raise litellm.APIConnectionError(
            message="connection reset", llm_provider="openai", model="gpt-4o-mini"
        )

    fake_completion(broken())
    pieces: list[str] = []
    with pytest.raises(LLMUnavailableError, match="connection reset"):
        LiteLLMChat("openai/gpt-4o-mini").stream(REQUEST, pieces.append)
    assert pieces == ["Hel"]


def test_the_finish_reason_is_carried_plain_and_streamed(
    fake_completion: Callable[..., Any],
) -> None:
    cut = model_response("a long answer")
    cut.choices[0].finish_reason = "length"
    fake_completion(cut)
    assert LiteLLMChat("openai/gpt-4o-mini").complete(REQUEST).finish_reason == "length"
    fake_completion(iter([chunk("Hel"), chunk("lo", finish="length")]))
    streamed = LiteLLMChat("openai/gpt-4o-mini").stream(REQUEST, lambda _: None)
    assert streamed.finish_reason == "length"
