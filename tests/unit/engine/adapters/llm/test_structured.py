"""ask_structured: constrained request, validation, one retry with feedback, then a clear error."""

from typing import Literal

import pytest
from pydantic import BaseModel, Field

from engine.adapters.llm.scripted import ScriptedLLM
from engine.domain.records import ChatMessage, LLMRequest
from engine.domain.structured import (
    StructuredOutputError,
    ask_structured,
    parse_structured,
    schema_for,
)
from engine.errors import ConfigError, LLMOutputError, LLMTimeoutError


class Rating(BaseModel):
    score: int = Field(ge=1, le=5)
    reason: str


class Nested(BaseModel):
    ratings: list[Rating]
    verdict: Literal["keep", "drop"]


QUESTION = (ChatMessage("user", "Rate it."),)


def replies(*texts: str) -> ScriptedLLM:
    queue = list(texts)
    return ScriptedLLM(lambda request: queue.pop(0))


def test_valid_reply_parses_in_one_call_with_the_schema_attached() -> None:
    llm = replies('{"score": 4, "reason": "clear"}')
    assert ask_structured(llm, QUESTION, Rating, purpose="rate") == Rating(score=4, reason="clear")
    (request,) = llm.requests
    assert request.json_schema == schema_for(Rating)
    assert request.purpose == "rate"


def test_invalid_reply_is_retried_once_with_the_error_fed_back() -> None:
    llm = replies('{"score": 9, "reason": "x"}', '{"score": 5, "reason": "fixed"}')
    assert ask_structured(llm, QUESTION, Rating).score == 5
    retry = llm.requests[1]
    assert [message.role for message in retry.messages] == ["user", "assistant", "user"]
    assert retry.messages[1].content == '{"score": 9, "reason": "x"}'
    assert "score" in retry.messages[2].content
    assert "less than or equal to 5" in retry.messages[2].content


def test_two_bad_replies_raise_with_the_raw_texts() -> None:
    llm = replies("garbage", "{not json")
    with pytest.raises(StructuredOutputError, match="Rating after 2 attempt") as caught:
        ask_structured(llm, QUESTION, Rating)
    assert caught.value.raw_texts == ("garbage", "{not json")
    assert caught.value.raw_text == "{not json"
    assert isinstance(caught.value, LLMOutputError)


def test_retries_zero_means_a_single_attempt() -> None:
    llm = replies("garbage")
    with pytest.raises(StructuredOutputError):
        ask_structured(llm, QUESTION, Rating, retries=0)
    assert len(llm.requests) == 1


def test_an_empty_reply_error_is_retried() -> None:
    calls = []

    def script(request: LLMRequest) -> str:
        calls.append(request)
        if len(calls) == 1:
            raise LLMOutputError("returned no text")
        return '{"score": 2, "reason": "ok"}'

    assert ask_structured(ScriptedLLM(script), QUESTION, Rating).score == 2
    assert "returned no text" in calls[1].messages[-1].content


def test_timeouts_are_not_retried() -> None:
    llm = ScriptedLLM(lambda request: (_ for _ in ()).throw(LLMTimeoutError("slow")))
    with pytest.raises(LLMTimeoutError):
        ask_structured(llm, QUESTION, Rating)
    assert len(llm.requests) == 1


def test_negative_retries_is_refused() -> None:
    with pytest.raises(ConfigError, match="retries"):
        ask_structured(replies(), QUESTION, Rating, retries=-1)


def test_schema_turns_bounded_integers_into_enums_everywhere() -> None:
    schema = schema_for(Nested)
    assert schema["$defs"]["Rating"]["properties"]["score"]["enum"] == [1, 2, 3, 4, 5]
    assert schema["properties"]["verdict"]["enum"] == ["keep", "drop"]


def test_schema_leaves_wide_or_open_integer_ranges_alone() -> None:
    class Counts(BaseModel):
        big: int = Field(ge=0, le=10_000)
        open_ended: int = Field(gt=0)
        exclusive: int = Field(gt=0, lt=4)

    properties = schema_for(Counts)["properties"]
    assert "enum" not in properties["big"]
    assert "enum" not in properties["open_ended"]
    assert properties["exclusive"]["enum"] == [1, 2, 3]


@pytest.mark.parametrize(
    "text",
    [
        '{"score": 3, "reason": "r"}',
        '```json\n{"score": 3, "reason": "r"}\n```',
        'Here you go: {"score": 3, "reason": "r"} Hope it helps.',
    ],
)
def test_parse_tolerates_text_around_one_object(text: str) -> None:
    assert parse_structured(text, Rating) == Rating(score=3, reason="r")


def test_parse_raises_for_an_object_that_does_not_validate() -> None:
    with pytest.raises(ValueError, match="score"):
        parse_structured('noise {"score": 0, "reason": "r"}', Rating)


def test_the_schema_is_built_once_per_model_class_and_each_caller_gets_its_own_copy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Verdict(BaseModel):  # a class of this test's own: nothing cached for it yet
        score: int = Field(ge=1, le=3)

    built: list[type[BaseModel]] = []
    build = Verdict.model_json_schema

    def counted(*args: object, **kwargs: object) -> dict[str, object]:
        built.append(Verdict)
        return build(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Verdict, "model_json_schema", counted)
    first = schema_for(Verdict)
    first["properties"]["score"]["enum"].append(99)  # a caller's change stays its own
    llm = replies('{"score": 2}', '{"score": 3}')
    ask_structured(llm, QUESTION, Verdict)
    ask_structured(llm, QUESTION, Verdict)
    assert len(built) == 1
    assert schema_for(Verdict)["properties"]["score"]["enum"] == [1, 2, 3]
    assert all(request.json_schema == schema_for(Verdict) for request in llm.requests)
