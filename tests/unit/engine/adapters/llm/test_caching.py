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


def test_an_empty_cache_is_still_truthy(tmp_path: Path) -> None:
    """`llm or build_llm(...)` must never swap an empty cache for an uncached model."""
    cached = CachingLLM(ScriptedLLM(lambda request: "x"), tmp_path, model="m")
    assert len(cached) == 0
    assert cached


def test_a_miss_reads_what_another_instance_appended_since(tmp_path: Path) -> None:
    first_inner = ScriptedLLM(lambda request: "from the first")
    second_inner = ScriptedLLM(lambda request: "from the second")
    first = CachingLLM(first_inner, tmp_path, model="m")
    second = CachingLLM(second_inner, tmp_path, model="m")  # before the first has asked
    first.complete(_request())
    response = second.complete(_request())
    assert response.text == "from the first"
    assert second_inner.requests == []
    assert (second.hits, second.misses) == (1, 0)


def test_a_stream_miss_reads_what_another_instance_appended_since(tmp_path: Path) -> None:
    second_inner = ScriptedLLM(lambda request: "from the second")
    second = CachingLLM(second_inner, tmp_path, model="m")
    CachingLLM(ScriptedLLM(lambda request: "from the first"), tmp_path, model="m").complete(
        _request()
    )
    pieces: list[str] = []
    assert second.stream(_request(), pieces.append).text == "from the first"
    assert pieces == ["from the first"]
    assert second_inner.requests == []


def _line_for(request: LLMRequest, text: str, directory: Path) -> bytes:
    """The cache line an instance with model "m" writes for `request` answered by `text`."""
    CachingLLM(ScriptedLLM(lambda _: text), directory, model="m").complete(request)
    return next(directory.glob("llm-*.jsonl")).read_bytes()


def test_a_line_still_being_written_is_read_once_complete(tmp_path: Path) -> None:
    line = _line_for(_request(), "four", tmp_path / "elsewhere")
    shared = tmp_path / "shared"
    shared.mkdir()
    path = shared / next((tmp_path / "elsewhere").glob("llm-*.jsonl")).name
    path.write_bytes(line[:20])  # another process is mid-write

    def faulty_on_other(request: LLMRequest) -> str:
        if "other" in request.messages[-1].content:
            raise LLMTimeoutError("slow")  # a fault is never cached: nothing is appended
        return "asked again"

    inner = ScriptedLLM(faulty_on_other)
    reader = CachingLLM(inner, shared, model="m")
    assert len(reader) == 0
    with pytest.raises(LLMTimeoutError):
        reader.complete(_request("other"))  # a miss reads the file, the half line included
    assert len(reader) == 0
    with path.open("ab") as file:
        file.write(line[20:])
    assert reader.complete(_request()).text == "four"
    assert [request.messages[-1].content for request in inner.requests] == ["other"]


def test_entries_from_both_instances_survive_in_the_file(tmp_path: Path) -> None:
    first = CachingLLM(ScriptedLLM(lambda request: "one"), tmp_path, model="m")
    second = CachingLLM(ScriptedLLM(lambda request: "two"), tmp_path, model="m")
    for k in range(3):
        first.complete(_request(f"first {k}"))
        second.complete(_request(f"second {k}"))
    inner = ScriptedLLM(lambda request: "asked again")
    restarted = CachingLLM(inner, tmp_path, model="m")
    assert len(restarted) == 6
    texts = {restarted.complete(_request(f"{who} {k}")).text for who in ("first", "second")
             for k in range(3)}  # fmt: skip
    assert texts == {"one", "two"}
    assert inner.requests == []


def test_an_entry_after_a_torn_line_survives_a_restart(tmp_path: Path) -> None:
    CachingLLM(ScriptedLLM(lambda request: "x"), tmp_path, model="m").complete(_request())
    path = next(tmp_path.glob("llm-*.jsonl"))
    path.write_text(path.read_text() + '{"key": "trunc')  # a killed run
    CachingLLM(ScriptedLLM(lambda request: "y"), tmp_path, model="m").complete(_request("new"))
    inner = ScriptedLLM(lambda request: "asked again")
    restarted = CachingLLM(inner, tmp_path, model="m")
    assert restarted.complete(_request("new")).text == "y"
    assert inner.requests == []
