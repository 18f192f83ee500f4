"""connect_chat: the composition root's one call for any model string."""

import pytest

from engine.adapters.llm.connect import connect_chat
from engine.adapters.llm.litellm_chat import LiteLLMChat
from engine.adapters.llm.litellm_runtime import load_litellm
from engine.adapters.llm.local_chat import LocalChat
from engine.adapters.llm.local_settings import LocalModelSettings


@pytest.fixture
def empty_provider_map(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    litellm = load_litellm()
    monkeypatch.setattr(litellm, "custom_provider_map", [])
    return litellm.custom_provider_map  # type: ignore[no-any-return]


def test_a_local_model_runs_in_process_with_its_settings(
    empty_provider_map: list[object],
) -> None:
    chat = connect_chat("local/smollm2", local=LocalModelSettings(threads=2, n_ctx=1024))
    assert isinstance(chat, LocalChat)
    assert chat.model == "local/smollm2"
    assert (chat.models.settings.threads, chat.models.settings.n_ctx) == (2, 1024)
    assert load_litellm().custom_provider_map == []  # litellm is not in the way


def test_a_hosted_model_goes_through_litellm(empty_provider_map: list[object]) -> None:
    chat = connect_chat("openai/gpt-4o-mini", api_base="http://127.0.0.1:9/v1", api_key="k")
    assert isinstance(chat, LiteLLMChat)
    assert chat.api_base == "http://127.0.0.1:9/v1"
    assert load_litellm().custom_provider_map == []
