"""The real Qwen2.5-Coder-1.5B-Instruct through `local/qwen2.5-coder-1.5b`, in-process.

Its 22 chunk packages are part of the locked install (the test command installs them), so this
never skips: the first run joins them into the model cache (`chunked_models`), later runs reuse
the checked file. The model loads once for the module; answers are kept short.
"""

from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel, Field

from engine.adapters.llm.chunked_models import QWEN_CODER
from engine.adapters.llm.connect import connect_chat
from engine.adapters.llm.llama_runtime import load_llama
from engine.adapters.llm.local_chat import LocalChat
from engine.adapters.llm.local_model import LocalModels
from engine.adapters.llm.local_settings import ChatRuntime, LocalModelSettings
from engine.domain.records import ChatMessage, LLMRequest
from engine.domain.structured import ask_structured

pytestmark = pytest.mark.slow

MODEL = "local/qwen2.5-coder-1.5b"


class Sum(BaseModel):
    total: int = Field(ge=0, le=1000)


@pytest.fixture(scope="module")
def loaded() -> Iterator[tuple[LocalChat, list[ChatRuntime]]]:
    runtimes: list[ChatRuntime] = []

    def loader(path: Path, settings: LocalModelSettings) -> ChatRuntime:
        runtimes.append(load_llama(path, settings))
        return runtimes[-1]

    models = LocalModels(LocalModelSettings(n_ctx=2048), loader=loader)
    yield LocalChat(MODEL, models), runtimes
    models.close()


def test_the_coder_model_answers_and_stops_at_its_answer_line(
    loaded: tuple[LocalChat, list[ChatRuntime]],
) -> None:
    chat, runtimes = loaded
    response = chat.complete(
        LLMRequest(
            messages=(
                ChatMessage("system", "You are a careful problem solver."),
                ChatMessage(
                    "user",
                    "Question: A shop sells pens at 3 dollars each. How much do 7 pens cost, "
                    "in dollars?\nEnd with a line 'Answer: <answer>'.",
                ),
            ),
            max_tokens=200,
            timeout_s=300,
        )
    )
    assert response.text.rstrip().splitlines()[-1].strip() == "Answer: 21"
    assert response.finish_reason == "stop"
    assert response.completion_tokens < 200
    assert response.cost_usd == 0.0
    [runtime] = runtimes
    assert Path(runtime.model_path).name == QWEN_CODER.file_name  # type: ignore[attr-defined]
    assert "Qwen2.5 Coder 1.5B Instruct" in runtime.metadata["general.name"]  # type: ignore[attr-defined]


def test_the_coder_model_fills_a_schema(loaded: tuple[LocalChat, list[ChatRuntime]]) -> None:
    chat, _ = loaded
    answer = ask_structured(
        chat,
        (ChatMessage("user", "What is 17 + 25? Reply as JSON with the total."),),
        Sum,
        purpose="check",
        max_tokens=20,
        timeout_s=300,
    )
    assert answer.total == 42


def test_connect_chat_routes_the_alias_to_the_local_adapter() -> None:
    chat = connect_chat(MODEL, local=LocalModelSettings())
    assert isinstance(chat, LocalChat)
    assert chat.model == MODEL
