"""The real SmolLM2-135M through `litellm.completion(model="local/smollm2")`, in-process.

The model loads once per test session; answers are kept short so the module runs in seconds.
"""

from collections.abc import Iterator

import pytest
from pydantic import BaseModel, Field

from engine.adapters.llm.litellm_chat import LiteLLMChat
from engine.adapters.llm.litellm_runtime import load_litellm
from engine.adapters.llm.local_model import LocalModels
from engine.adapters.llm.local_provider import register_local_provider
from engine.domain.budget import Budget, MeteredLLM
from engine.domain.records import ChatMessage, LLMRequest
from engine.domain.structured import ask_structured
from engine.errors import LLMTimeoutError

pytestmark = pytest.mark.slow


class Verdict(BaseModel):
    rating: int = Field(ge=1, le=5)
    label: str = Field(max_length=40)


@pytest.fixture(scope="session")
def local_models() -> Iterator[LocalModels]:
    models = register_local_provider()
    yield models
    models.close()


@pytest.fixture(scope="session")
def chat(local_models: LocalModels) -> LiteLLMChat:
    return LiteLLMChat("local/smollm2")


def test_litellm_completion_answers_in_process(local_models: LocalModels) -> None:
    response = load_litellm().completion(
        model="local/smollm2",
        messages=[
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "Say hello."},
        ],
        max_tokens=12,
        temperature=0.0,
    )
    text = response.choices[0].message.content
    assert isinstance(text, str)
    assert text.strip()
    assert response.usage.prompt_tokens > 0
    assert 0 < response.usage.completion_tokens <= 12
    assert [path.name for path in local_models.loaded_paths()] == [
        "SmolLM2-135M-Instruct.Q4_1.gguf"
    ]


def test_a_short_chat_answer_reports_its_cost(chat: LiteLLMChat) -> None:
    response = chat.complete(
        LLMRequest(messages=(ChatMessage("user", "What color is the sky?"),), max_tokens=16)
    )
    assert response.text.strip()
    assert response.prompt_tokens > 0
    assert 0 < response.completion_tokens <= 16
    assert response.cost_usd == 0.0
    assert response.seconds > 0


def test_a_schema_constrained_answer_validates(chat: LiteLLMChat) -> None:
    metered = MeteredLLM(chat, Budget(max_calls=2, max_tokens=2_000))
    verdict = ask_structured(
        metered,
        (
            ChatMessage(
                "user",
                "Rate from 1 to 5 how useful 'check the units' is for a physics problem. "
                "Answer as JSON with a rating and a one-word label.",
            ),
        ),
        Verdict,
        purpose="rate",
        max_tokens=40,
    )
    assert 1 <= verdict.rating <= 5
    assert metered.cost.calls >= 1
    assert metered.cost.prompt_tokens > 0
    assert metered.cost.completion_tokens > 0


def test_greedy_decoding_is_repeatable(chat: LiteLLMChat) -> None:
    request = LLMRequest(messages=(ChatMessage("user", "Name a fruit."),), max_tokens=8, seed=1)
    assert chat.complete(request).text == chat.complete(request).text


def test_a_generation_past_its_deadline_times_out_and_the_model_recovers(
    chat: LiteLLMChat,
) -> None:
    story = LLMRequest(
        messages=(ChatMessage("user", "Tell a long story about a dragon."),),
        max_tokens=512,
        timeout_s=0.3,
    )
    with pytest.raises(LLMTimeoutError, match="deadline"):
        chat.complete(story)
    after = chat.complete(LLMRequest(messages=(ChatMessage("user", "Hi."),), max_tokens=4))
    assert after.completion_tokens > 0


def test_the_local_model_streams_real_tokens(chat: LiteLLMChat) -> None:
    """Token by token as llama.cpp generates them, with the same usage a plain call reports."""
    request = LLMRequest(
        messages=(ChatMessage("user", "Name three colors of the rainbow."),), max_tokens=24
    )
    pieces: list[str] = []
    streamed = chat.stream(request, pieces.append)
    plain = chat.complete(request)
    assert len(pieces) > 5  # one piece per token or so, not one chunk at the end
    assert "".join(pieces) == streamed.text
    assert streamed.text == plain.text  # temperature 0: the same generation, only streamed
    assert streamed.completion_tokens == plain.completion_tokens
    assert abs(streamed.prompt_tokens - plain.prompt_tokens) <= 1
    assert streamed.cost_usd == 0.0
