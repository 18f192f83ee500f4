"""CachingLLM: exact-request keys, persistence, torn lines, faults, sampled requests."""

from pathlib import Path

import pytest

from engine.adapters.llm.caching import CachingLLM, request_key
from engine.adapters.llm.scripted import ScriptedLLM
from engine.domain.records import ChatMessage, LLMRequest
from engine.errors import LLMTimeoutError


def _request(text: str = "2 + 2?", **fields: object) -> LLMRequest:
    return LLMRequest(messages=(ChatMessage("user", text),), **fields)  # type: ignore[arg-type]


def test_a_hit_survives_a_restart_and_reports_the_original_cost(tmp_path: Path) -> None:
    inner = ScriptedLLM(lambda request: "four")
    first = CachingLLM(inner, tmp_path, model="m").complete(_request())
    again = ScriptedLLM(lambda request: "changed")
    cached = CachingLLM(again, tmp_path, model="m")
    response = cached.complete(_request())
    assert (response.text, response.completion_tokens) == ("four", first.completion_tokens)
    assert again.requests == []
    assert cached.calls[0].hit


def test_everything_that_decides_the_output_is_in_the_key() -> None:
    base = request_key("m", _request())
    assert base == request_key("m", _request(timeout_s=5.0, purpose="seed"))
    assert base != request_key("other", _request())
    assert base != request_key("m", _request("2 + 3?"))
    assert base != request_key("m", _request(max_tokens=7))
    assert base != request_key("m", _request(json_schema={"type": "object"}))
    assert base != request_key("m", _request(seed=1))


def test_a_torn_line_is_skipped_and_asked_again(tmp_path: Path) -> None:
    CachingLLM(ScriptedLLM(lambda request: "x"), tmp_path, model="m").complete(_request())
    path = next(tmp_path.glob("llm-*.jsonl"))
    path.write_text(path.read_text() + '{"key": "trunc')
    inner = ScriptedLLM(lambda request: "y")
    cached = CachingLLM(inner, tmp_path, model="m")
    assert len(cached) == 1
    assert cached.complete(_request("new")).text == "y"


def test_faults_and_sampled_requests_are_never_cached(tmp_path: Path) -> None:
    def flaky(request: LLMRequest) -> str:
        raise LLMTimeoutError("slow")

    cached = CachingLLM(ScriptedLLM(flaky), tmp_path, model="m")
    with pytest.raises(LLMTimeoutError):
        cached.complete(_request())
    assert len(cached) == 0
    inner = ScriptedLLM(lambda request: "z")
    sampled = CachingLLM(inner, tmp_path, model="m")
    for _ in range(2):
        sampled.complete(_request(temperature=0.7))
    assert len(inner.requests) == 2
    assert len(sampled) == 0
