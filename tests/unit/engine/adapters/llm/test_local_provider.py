"""The `local` litellm provider: real litellm routing to LocalModels over a fake llama.cpp."""

import asyncio
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from engine.adapters.llm.litellm_chat import LiteLLMChat
from engine.adapters.llm.litellm_runtime import load_litellm
from engine.adapters.llm.local_model import LocalModels
from engine.adapters.llm.local_provider import (
    PROVIDER,
    LocalProvider,
    _handler_class,
    register_local_provider,
    schema_from_response_format,
)
from engine.adapters.llm.local_settings import LocalModelSettings
from engine.domain.records import ChatMessage, LLMRequest
from engine.errors import ConfigError, LLMError, LLMTimeoutError, LLMUnavailableError


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


class EchoRuntime:
    """Answers with the last user message; each call takes `seconds` on the fake clock."""

    def __init__(self, clock: Clock, seconds: float = 0.0) -> None:
        self.clock, self.seconds = clock, seconds
        self.stop_requested: Any = None
        self.text_stop: Any = None
        self.calls: list[dict[str, Any]] = []

    def create_chat_completion(self, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        if kwargs.get("stream"):
            return self._stream(kwargs["messages"][-1]["content"].upper())
        self.clock.now += self.seconds
        stopped = self.stop_requested is not None and self.stop_requested()
        text = kwargs["messages"][-1]["content"].upper()
        return {
            "choices": [{"message": {"content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 9, "completion_tokens": 2 if not stopped else 1},
        }

    def _stream(self, text: str) -> Iterator[Mapping[str, Any]]:
        """One chunk per word, as llama.cpp streams tokens; the stop hook is polled after each."""
        self.n_tokens = 9  # the prompt, as llama.cpp's context holds it
        yield {"choices": [{"delta": {"role": "assistant"}, "finish_reason": None}]}
        for word in re.findall(r"\S+\s*", text):
            self.clock.now += self.seconds
            self.n_tokens += 1
            yield {"choices": [{"delta": {"content": word}, "finish_reason": None}]}
            if self.stop_requested is not None and self.stop_requested():
                break
        yield {"choices": [{"delta": {}, "finish_reason": "stop"}]}


@pytest.fixture
def routed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> tuple[str, EchoRuntime, list[str]]:
    """litellm routes `local/...` to LocalModels over an EchoRuntime; returns the model string."""
    litellm = load_litellm()
    clock = Clock()
    runtime = EchoRuntime(clock, seconds=1.0)
    schemas: list[str] = []

    def compile_grammar(schema: str) -> str:
        schemas.append(schema)
        return "grammar"

    models = LocalModels(
        loader=lambda path, settings: runtime,
        compile_grammar=compile_grammar,
        clock=clock,
    )
    handler = _handler_class(litellm.CustomLLM)(models)
    monkeypatch.setattr(
        litellm, "custom_provider_map", [{"provider": PROVIDER, "custom_handler": handler}]
    )
    gguf = tmp_path / "fake.gguf"
    gguf.write_bytes(b"GGUF")
    return f"local/{gguf}", runtime, schemas


def test_litellm_routes_local_models_to_the_handler(
    routed: tuple[str, EchoRuntime, list[str]],
) -> None:
    model, runtime, _ = routed
    response = LiteLLMChat(model).complete(
        LLMRequest(messages=(ChatMessage("user", "hello"),), max_tokens=5, seed=4)
    )
    assert (response.text, response.prompt_tokens, response.completion_tokens) == ("HELLO", 9, 2)
    assert response.cost_usd == 0.0  # in-process: free, and said so
    assert response.model.startswith("local/")
    (call,) = runtime.calls
    assert (call["max_tokens"], call["seed"], call["messages"]) == (
        5,
        4,
        [{"role": "user", "content": "hello"}],
    )


def test_the_json_schema_reaches_the_grammar_compiler(
    routed: tuple[str, EchoRuntime, list[str]],
) -> None:
    model, runtime, schemas = routed
    schema = {"type": "object", "properties": {"score": {"enum": [1, 2, 3]}}}
    LiteLLMChat(model).complete(
        LLMRequest(messages=(ChatMessage("user", "rate"),), json_schema=schema, purpose="rate")
    )
    assert [json.loads(text) for text in schemas] == [schema]
    assert runtime.calls[0]["grammar"] == "grammar"


def test_the_request_timeout_reaches_the_deadline_and_the_type_survives_litellm(
    routed: tuple[str, EchoRuntime, list[str]],
) -> None:
    model, _, _ = routed  # each generation takes 1 s on the fake clock
    with pytest.raises(LLMTimeoutError, match=r"0\.5 s deadline"):
        LiteLLMChat(model).complete(LLMRequest(messages=(ChatMessage("user", "x"),), timeout_s=0.5))


def test_a_missing_model_file_is_unavailable_through_litellm(
    routed: tuple[str, EchoRuntime, list[str]], tmp_path: Path
) -> None:
    with pytest.raises(LLMUnavailableError, match=r"missing\.gguf does not exist"):
        LiteLLMChat(f"local/{tmp_path / 'missing.gguf'}").complete(
            LLMRequest(messages=(ChatMessage("user", "x"),))
        )


@pytest.mark.parametrize(
    ("response_format", "schema"),
    [
        (
            {"type": "json_schema", "json_schema": {"name": "n", "schema": {"type": "integer"}}},
            {"type": "integer"},
        ),
        ({"type": "json_object", "schema": {"type": "string"}}, {"type": "string"}),
        ({"type": "json_object"}, {"type": "object"}),
        ({"type": "text"}, None),
        (None, None),
    ],
)
def test_response_formats_map_to_schemas(
    response_format: object, schema: Mapping[str, Any] | None
) -> None:
    assert schema_from_response_format(response_format) == schema


@pytest.mark.parametrize(
    ("response_format", "problem"),
    [
        ({"type": "xml"}, "not one of"),
        ({"type": "json_schema", "json_schema": {}}, "no JSON schema"),
        ("json", "must be a dict"),
    ],
)
def test_bad_response_formats_are_clear_errors(response_format: object, problem: str) -> None:
    with pytest.raises(LLMError, match=problem):
        schema_from_response_format(response_format)


def test_registration_is_idempotent_and_settings_replace_the_handler(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    litellm = load_litellm()
    other = {"provider": "someone-else", "custom_handler": object()}
    monkeypatch.setattr(litellm, "custom_provider_map", [other])
    first = register_local_provider()
    assert register_local_provider(LocalModelSettings()) is first
    assert len(litellm.custom_provider_map) == 2
    second = register_local_provider(LocalModelSettings(threads=2))
    assert second is not first
    assert second.settings.threads == 2
    handlers = [item["custom_handler"] for item in litellm.custom_provider_map]
    assert handlers[0] is other["custom_handler"]
    assert isinstance(handlers[1], LocalProvider)
    assert isinstance(handlers[1], litellm.CustomLLM)
    assert handlers[1].models is second


def test_registration_refuses_to_replace_a_foreign_local_provider(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    litellm = load_litellm()
    foreign = litellm.CustomLLM()
    monkeypatch.setattr(
        litellm, "custom_provider_map", [{"provider": PROVIDER, "custom_handler": foreign}]
    )
    with pytest.raises(ConfigError, match="already has a custom provider"):
        register_local_provider()
    assert litellm.custom_provider_map[0]["custom_handler"] is foreign


def test_litellm_acompletion_runs_the_generation_off_the_event_loop(
    routed: tuple[str, EchoRuntime, list[str]],
) -> None:
    model, runtime, _ = routed

    async def ask() -> Any:
        return await load_litellm().acompletion(
            model=model, messages=[{"role": "user", "content": "async"}], max_tokens=3
        )

    response = asyncio.run(ask())
    assert response.choices[0].message.content == "ASYNC"
    assert response.usage.completion_tokens == 2
    assert len(runtime.calls) == 1


def test_a_local_model_streams_token_by_token_through_litellm(
    routed: tuple[str, EchoRuntime, list[str]],
) -> None:
    model, runtime, _ = routed
    runtime.seconds = 0.1
    pieces: list[str] = []
    request = LLMRequest(messages=(ChatMessage("user", "one two three four"),), timeout_s=5)
    response = LiteLLMChat(model).stream(request, pieces.append)
    assert pieces == ["ONE ", "TWO ", "THREE ", "FOUR"]  # one piece per token, not one at the end
    assert response.text == "ONE TWO THREE FOUR"
    assert (response.prompt_tokens, response.completion_tokens) == (9, 4)
    assert response.cost_usd == 0.0
    assert runtime.stop_requested is None  # the model is free again


def test_a_local_stream_past_its_deadline_stops_with_a_timeout(
    routed: tuple[str, EchoRuntime, list[str]],
) -> None:
    model, runtime, _ = routed
    runtime.seconds = 1.0
    pieces: list[str] = []
    request = LLMRequest(messages=(ChatMessage("user", "a b c d e f"),), timeout_s=2.5)
    with pytest.raises(LLMTimeoutError):
        LiteLLMChat(model).stream(request, pieces.append)
    assert pieces == ["A ", "B ", "C "]  # stopped at the first token past the deadline


def test_an_exception_from_the_sink_surfaces_unchanged_and_frees_the_model(
    routed: tuple[str, EchoRuntime, list[str]],
) -> None:
    model, _, _ = routed

    def broken(_text: str) -> None:
        raise KeyError("listener bug")

    request = LLMRequest(messages=(ChatMessage("user", "x y"),), timeout_s=5)
    with pytest.raises(KeyError, match="listener bug"):
        LiteLLMChat(model).stream(request, broken)
    pieces: list[str] = []
    assert LiteLLMChat(model).stream(request, pieces.append).text == "X Y"
