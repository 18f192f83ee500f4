"""Build the chat adapter for a model string: what the composition root calls.

>>> chat = connect_chat("openai/gpt-4o-mini", api_key="sk-example")
>>> chat
LiteLLMChat(model='openai/gpt-4o-mini', api_base=None)
"""

from engine.adapters.llm.litellm_chat import LiteLLMChat
from engine.adapters.llm.local_provider import PROVIDER, register_local_provider
from engine.adapters.llm.local_settings import LocalModelSettings

__all__ = ["connect_chat"]


def connect_chat(
    model: str,
    *,
    api_base: str | None = None,
    api_key: str | None = None,
    local: LocalModelSettings | None = None,
) -> LiteLLMChat:
    """Return `LiteLLMChat(model)`, registering the in-process provider for `local/...` models.

    `local` applies to in-process models only (threads, context size); hosted models ignore it.
    Nothing loads here: litellm and the GGUF file load on the first call.
    """
    if model.startswith(f"{PROVIDER}/"):
        register_local_provider(local)
    return LiteLLMChat(model, api_base=api_base, api_key=api_key)
