"""LocalChat: the LLM port straight onto LocalModels, over a fake llama.cpp runtime."""

import os
import re
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from engine.adapters.llm.connect import connect_chat
from engine.adapters.llm.litellm_chat import LiteLLMChat
from engine.adapters.llm.local_chat import LocalChat, shared_local_models
from engine.adapters.llm.local_model import LocalModels
from engine.adapters.llm.local_settings import LocalModelSettings
from engine.compose import load_model
from engine.domain.records import ChatMessage, LLMRequest
from engine.errors import LLMError, LLMTimeoutError


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


class EchoRuntime:
    """Answers with the last user message in capitals; each word takes `seconds` on the clock."""

    def __init__(self, clock: Clock, seconds: float = 0.0) -> None:
        self.clock, self.seconds = clock, seconds
        self.stop_requested: Any = None
        self.text_stop: Any = None
        self.calls: list[dict[str, Any]] = []

    def create_chat_completion(self, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        text = kwargs["messages"][-1]["content"].upper()
        if kwargs.get("stream"):
            return self._stream(text)
        self.clock.now += self.seconds
        if self.stop_requested is not None:
            self.stop_requested()
        return {
            "choices": [{"message": {"content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 9, "completion_tokens": 2},
        }

    def _stream(self, text: str) -> Iterator[Mapping[str, Any]]:
        self.n_tokens = 9
        for word in re.findall(r"\S+\s*", text):
            self.clock.now += self.seconds
            self.n_tokens += 1
            yield {"choices": [{"delta": {"content": word}, "finish_reason": None}]}
            if self.stop_requested is not None and self.stop_requested():
                break
        yield {"choices": [{"delta": {}, "finish_reason": "stop"}]}


@pytest.fixture
def gguf(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF")
    return path


def make_chat(gguf: Path, seconds: float = 0.0) -> tuple[LocalChat, EchoRuntime, list[Path]]:
    clock = Clock()
    runtime = EchoRuntime(clock, seconds)
    loads: list[Path] = []

    def loader(path: Path, settings: LocalModelSettings) -> EchoRuntime:
        loads.append(path)
        return runtime

    models = LocalModels(
        loader=loader, compile_grammar=lambda schema: ("grammar", schema), clock=clock
    )
    return LocalChat(f"local/{gguf}", models), runtime, loads


def ask(text: str, **fields: Any) -> LLMRequest:
    return LLMRequest(messages=(ChatMessage("user", text),), **fields)


def test_a_completion_reports_text_tokens_and_no_cost(gguf: Path) -> None:
    chat, runtime, _ = make_chat(gguf)
    response = chat.complete(ask("hello there", max_tokens=5, seed=4, temperature=0.3))
    assert (response.text, response.prompt_tokens, response.completion_tokens) == (
        "HELLO THERE",
        9,
        2,
    )
    assert (response.cost_usd, response.model, response.finish_reason) == (
        0.0,
        f"local/{gguf}",
        "stop",
    )
    (call,) = runtime.calls
    assert (call["max_tokens"], call["seed"], call["temperature"]) == (5, 4, 0.3)
    assert call["messages"] == [{"role": "user", "content": "hello there"}]


def test_a_json_schema_becomes_the_grammar(gguf: Path) -> None:
    chat, runtime, _ = make_chat(gguf)
    chat.complete(ask("rate", json_schema={"type": "integer"}))
    assert runtime.calls[0]["grammar"] == ("grammar", '{"type": "integer"}')


def test_the_request_timeout_is_the_deadline(gguf: Path) -> None:
    chat, _, _ = make_chat(gguf, seconds=1.0)
    with pytest.raises(LLMTimeoutError, match=r"0\.5 s deadline"):
        chat.complete(ask("x", timeout_s=0.5))


def test_a_stream_hands_over_each_piece_and_returns_the_whole(gguf: Path) -> None:
    chat, _, _ = make_chat(gguf)
    pieces: list[str] = []
    response = chat.stream(ask("one two three"), pieces.append)
    assert pieces == ["ONE ", "TWO ", "THREE"]
    assert response.text == "ONE TWO THREE"
    assert (response.completion_tokens, response.cost_usd) == (3, 0.0)


def test_a_failing_sink_passes_unchanged_and_frees_the_model(gguf: Path) -> None:
    chat, _, _ = make_chat(gguf)

    def refuse(_text: str) -> None:
        raise KeyError("the caller's own")

    with pytest.raises(KeyError, match="the caller's own"):
        chat.stream(ask("one two"), refuse)
    assert chat.complete(ask("again")).text == "AGAIN"  # the model's lock was released


def test_a_stream_with_a_schema_is_refused(gguf: Path) -> None:
    chat, _, _ = make_chat(gguf)
    with pytest.raises(LLMError, match="free text only"):
        chat.stream(ask("x", json_schema={"type": "integer"}), lambda _text: None)


def test_load_reads_the_file_once_before_any_call(gguf: Path) -> None:
    chat, _, loads = make_chat(gguf)
    load_model(chat)
    assert loads == [gguf.resolve()]
    chat.load()
    chat.complete(ask("hi"))
    assert loads == [gguf.resolve()]


def test_load_model_leaves_other_models_alone() -> None:
    load_model(LiteLLMChat("openai/gpt-4o-mini"))  # nothing to load, and no error


def test_a_model_string_without_the_local_prefix_is_refused() -> None:
    with pytest.raises(LLMError, match="local/<model> only"):
        LocalChat("openai/gpt-4o-mini", LocalModels())
    with pytest.raises(LLMError, match="local/<model> only"):
        LocalChat("local/", LocalModels())


def test_connect_chat_shares_one_models_per_settings() -> None:
    settings = LocalModelSettings(threads=3, n_ctx=512)
    first = connect_chat("local/smollm2", local=settings)
    second = connect_chat("local/smollm2", local=LocalModelSettings(threads=3, n_ctx=512))
    assert isinstance(first, LocalChat)
    assert isinstance(second, LocalChat)
    assert first.models is second.models is shared_local_models(settings)
    assert first.models.settings == settings
    other = connect_chat("local/smollm2", local=LocalModelSettings(threads=2, n_ctx=512))
    assert isinstance(other, LocalChat)
    assert other.models is not first.models


def test_the_local_model_path_never_imports_litellm() -> None:
    # litellm's import is most of a service's start-up; the embedded model must not need it.
    probe = (
        "import sys\n"
        "from engine.compose import build_llm\n"
        "from engine.settings import load_settings\n"
        "chat = build_llm(load_settings())\n"
        "assert type(chat).__name__ == 'LocalChat', chat\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] == 'litellm'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "THINKPATH_MODEL": "local/smollm2"},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
