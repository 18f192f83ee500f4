"""Build the chat adapter for a model string: what the composition root calls.

>>> chat = connect_chat("openai/gpt-4o-mini", api_key="sk-example")
>>> chat
LiteLLMChat(model='openai/gpt-4o-mini', api_base=None)
>>> connect_chat("local/smollm2")
LocalChat(model='local/smollm2')
"""

from engine.adapters.llm.litellm_chat import LiteLLMChat
from engine.adapters.llm.local_chat import PREFIX, LocalChat, shared_local_models
from engine.adapters.llm.local_settings import LocalModelSettings

__all__ = ["connect_chat"]


def connect_chat(
    model: str,
    *,
    api_base: str | None = None,
    api_key: str | None = None,
    local: LocalModelSettings | None = None,
) -> LiteLLMChat | LocalChat:
    """`LocalChat` for a `local/...` model (in-process, no litellm), else `LiteLLMChat(model)`.

    `local` applies to in-process models only (threads, context size); hosted models ignore it.
    Nothing loads here: litellm and the GGUF file load on the first call (or, for a local model,
    on `LocalChat.load()`).
    """
    if model.startswith(PREFIX):
        return LocalChat(model, shared_local_models(local))
    return LiteLLMChat(model, api_base=api_base, api_key=api_key)
