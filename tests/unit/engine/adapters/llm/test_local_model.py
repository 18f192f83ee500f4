"""LocalModels with a fake llama.cpp runtime: loading once, locking, deadlines, grammars, paths."""

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from engine.adapters.llm.local_model import (
    LocalModels,
    LocalModelSettings,
    resolve_model_path,
)
from engine.errors import ConfigError, LLMError, LLMTimeoutError, LLMUnavailableError


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class FakeRuntime:
    """Generates `tokens` words, advancing the clock per token and polling the stop hook."""

    def __init__(self, clock: FakeClock, tokens: int = 5, seconds_per_token: float = 0.1) -> None:
        self.clock, self.tokens, self.seconds_per_token = clock, tokens, seconds_per_token
        self.stop_requested: Any = None
        self.text_stop: Any = None
        self.calls: list[dict[str, Any]] = []
        self.closed = False

    def create_chat_completion(self, **kwargs: Any) -> Mapping[str, Any]:
        self.calls.append(kwargs)
        words = []
        for index in range(min(self.tokens, kwargs["max_tokens"])):
            self.clock.now += self.seconds_per_token
            words.append(f"w{index}")
            if self.stop_requested is not None and self.stop_requested():
                break
        return {
            "choices": [{"message": {"content": " ".join(words)}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 7, "completion_tokens": len(words)},
        }

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def gguf(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF")
    return path


def make_models(clock: FakeClock, runtime: FakeRuntime) -> tuple[LocalModels, list[Path]]:
    loads: list[Path] = []

    def loader(path: Path, settings: LocalModelSettings) -> FakeRuntime:
        loads.append(path)
        return runtime

    models = LocalModels(
        loader=loader, compile_grammar=lambda schema: ("grammar", schema), clock=clock
    )
    return models, loads


USER = [{"role": "user", "content": "hi"}]


def test_generation_reports_text_tokens_and_loads_each_file_once(gguf: Path) -> None:
    clock = FakeClock()
    models, loads = make_models(clock, FakeRuntime(clock, tokens=3))
    first = models.generate(str(gguf), USER, max_tokens=10, timeout_s=5)
    models.generate(str(gguf), USER, max_tokens=10, timeout_s=5)
    assert (first.text, first.prompt_tokens, first.completion_tokens) == ("w0 w1 w2", 7, 3)
    assert first.model_path == gguf.resolve()
    assert loads == [gguf.resolve()]


def test_past_the_deadline_generation_stops_and_raises_timeout(gguf: Path) -> None:
    clock = FakeClock()
    runtime = FakeRuntime(clock, tokens=100, seconds_per_token=0.25)
    models, _ = make_models(clock, runtime)
    with pytest.raises(LLMTimeoutError, match="1 s deadline"):
        models.generate(str(gguf), USER, max_tokens=100, timeout_s=1.0)
    assert clock.now == 1.0  # stopped at the first token that reached the deadline
    assert runtime.stop_requested is None  # the hook does not outlive its call
    assert models.generate(str(gguf), USER, max_tokens=3, timeout_s=1.0).completion_tokens == 3


def test_a_busy_model_times_out_the_waiting_caller(gguf: Path) -> None:
    clock = FakeClock()
    models, _ = make_models(clock, FakeRuntime(clock))
    _, lock = models._runtime_for(gguf.resolve())
    with lock, pytest.raises(LLMTimeoutError, match="busy"):
        models.generate(str(gguf), USER, max_tokens=3, timeout_s=0.01)


def test_generations_on_one_model_never_overlap(gguf: Path) -> None:
    active, overlaps = [0], []

    class Watching(FakeRuntime):
        def create_chat_completion(self, **kwargs: Any) -> Mapping[str, Any]:
            active[0] += 1
            overlaps.append(active[0])
            threading.Event().wait(0.01)
            active[0] -= 1
            return super().create_chat_completion(**kwargs)

    clock = FakeClock()
    models, _ = make_models(clock, Watching(clock, tokens=1))
    threads = [
        threading.Thread(
            target=models.generate,
            args=(str(gguf), USER),
            kwargs={"max_tokens": 1, "timeout_s": 60},
        )
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert overlaps == [1, 1, 1, 1]


def test_schema_becomes_a_cached_grammar_and_options_pass_through(gguf: Path) -> None:
    clock = FakeClock()
    runtime = FakeRuntime(clock)
    compiled: list[str] = []

    def compile_grammar(schema: str) -> str:
        compiled.append(schema)
        return f"g{len(compiled)}"

    models = LocalModels(
        loader=lambda path, settings: runtime,
        compile_grammar=compile_grammar,
        clock=clock,
    )
    schema = {"type": "object", "properties": {"a": {"enum": [1, 2]}}}
    for _ in range(2):
        models.generate(
            str(gguf), USER, max_tokens=4, timeout_s=9, json_schema=schema, seed=3, stop=["\n"]
        )
    assert len(compiled) == 1
    call = runtime.calls[-1]
    assert (call["grammar"], call["seed"], call["stop"], call["max_tokens"]) == ("g1", 3, ["\n"], 4)
    assert runtime.calls[0]["temperature"] == 0.0


def test_a_schema_that_does_not_compile_is_a_clear_error(gguf: Path) -> None:
    def refuse(schema: str) -> object:
        raise ValueError("Unrecognized schema")

    clock = FakeClock()
    models = LocalModels(loader=lambda path, settings: FakeRuntime(clock), compile_grammar=refuse)
    with pytest.raises(LLMError, match=r"cannot be turned into a llama\.cpp grammar"):
        models.generate(str(gguf), USER, max_tokens=4, timeout_s=9, json_schema={"type": "x"})


def test_context_overflow_becomes_an_llm_error_naming_n_ctx(gguf: Path) -> None:
    class Overflowing(FakeRuntime):
        def create_chat_completion(self, **kwargs: Any) -> Mapping[str, Any]:
            raise ValueError("Requested tokens (5000) exceed context window of 2048")

    clock = FakeClock()
    models, _ = make_models(clock, Overflowing(clock))
    with pytest.raises(LLMError, match="n_ctx setting = 2048"):
        models.generate(str(gguf), USER, max_tokens=4, timeout_s=9)
    _, lock = models._runtime_for(gguf.resolve())
    assert not lock.locked()


def test_close_frees_models_and_the_next_call_loads_again(gguf: Path) -> None:
    clock = FakeClock()
    runtime = FakeRuntime(clock)
    models, loads = make_models(clock, runtime)
    models.generate(str(gguf), USER, max_tokens=1, timeout_s=9)
    models.close()
    assert runtime.closed
    assert models.loaded_paths() == []
    models.generate(str(gguf), USER, max_tokens=1, timeout_s=9)
    assert len(loads) == 2


def test_bad_max_tokens_is_refused_before_loading(gguf: Path) -> None:
    clock = FakeClock()
    models, loads = make_models(clock, FakeRuntime(clock))
    with pytest.raises(LLMError, match="max_tokens"):
        models.generate(str(gguf), USER, max_tokens=0, timeout_s=9)
    assert loads == []


def test_missing_file_names_the_path_and_the_fix(tmp_path: Path) -> None:
    missing = tmp_path / "absent.gguf"
    with pytest.raises(LLMUnavailableError, match=r"absent\.gguf does not exist.*local/smollm2"):
        resolve_model_path(str(missing))


def test_unknown_alias_lists_the_known_ones() -> None:
    with pytest.raises(LLMUnavailableError, match=r"use one of qwen2\.5-coder-1\.5b, smollm2 "):
        resolve_model_path("gpt-5")


def test_smollm2_alias_finds_the_packaged_gguf() -> None:
    path = resolve_model_path("smollm2")
    assert path.suffix == ".gguf"
    assert path.is_file()
    assert path.stat().st_size > 50_000_000  # the real weights, not a pointer file


@pytest.mark.parametrize("fields", [{"threads": 0}, {"n_ctx": 10}, {"n_batch": 0}])
def test_bad_settings_are_refused(fields: dict[str, Any]) -> None:
    with pytest.raises(ConfigError, match=next(iter(fields))):
        LocalModelSettings(**fields)


def test_a_loaded_model_keeps_working_after_its_file_is_gone(gguf: Path) -> None:
    clock = FakeClock()
    models, loads = make_models(clock, FakeRuntime(clock))
    models.generate(str(gguf), USER, max_tokens=1, timeout_s=9)
    gguf.unlink()
    assert models.generate(str(gguf), USER, max_tokens=1, timeout_s=9).completion_tokens == 1
    models.close()
    with pytest.raises(LLMUnavailableError, match="does not exist"):
        models.generate(str(gguf), USER, max_tokens=1, timeout_s=9)
    assert len(loads) == 1
