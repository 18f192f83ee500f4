"""LLM access: litellm for hosted providers, the in-process local model, wrappers, a test double.

    from engine.adapters.llm import Budget, MeteredLLM, ask_structured, connect_chat

    chat = connect_chat("local/smollm2")           # once, in the composition root
    llm = MeteredLLM(chat, Budget(max_calls=4, max_tokens=4_000))  # per decision
    rating = ask_structured(llm, messages, Rating)  # validated pydantic object, or an LLMError
    llm.cost                                        # calls, tokens, seconds, money

Importing this package is cheap: litellm (5-7 s; hosted models only) and llama.cpp load on first
use.
"""

from engine.adapters.llm.connect import connect_chat
from engine.adapters.llm.litellm_chat import LiteLLMChat
from engine.adapters.llm.local_chat import LocalChat
from engine.adapters.llm.local_model import DEFAULT_LOCAL_MODEL, LocalModels
from engine.adapters.llm.local_provider import register_local_provider
from engine.adapters.llm.local_settings import LocalModelSettings
from engine.adapters.llm.scripted import ScriptedLLM
from engine.domain.budget import Budget, MeteredLLM
from engine.domain.records import Cost
from engine.domain.structured import StructuredOutputError, ask_structured

__all__ = [
    "DEFAULT_LOCAL_MODEL",
    "Budget",
    "Cost",
    "LiteLLMChat",
    "LocalChat",
    "LocalModelSettings",
    "LocalModels",
    "MeteredLLM",
    "ScriptedLLM",
    "StructuredOutputError",
    "ask_structured",
    "connect_chat",
    "register_local_provider",
]
