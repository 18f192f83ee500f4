"""A wrapper that tells a decision's listener which model call starts, before it starts.

A stage is heard when it finishes (`DecisionListener.on_stage`); a model call can take 20 s on
a small local model, and a progress display that says nothing meanwhile looks hung. Every call
carries its purpose ("seed", "rate", "answer", "referee", ...), so announcing it names the stage
that is working. A listener opts in by having `on_call(purpose)`; the others are left alone.

>>> from engine.adapters.llm.scripted import ScriptedLLM
>>> from engine.domain.records import ChatMessage, LLMRequest
>>> class Heard:
...     def __init__(self): self.calls = []
...     def on_call(self, purpose): self.calls.append(purpose)
>>> heard = Heard()
>>> llm = announced(ScriptedLLM(lambda request: "Answer: 4"), heard)
>>> llm.complete(LLMRequest(messages=(ChatMessage("user", "2+2?"),), purpose="answer")).text
'Answer: 4'
>>> heard.calls
['answer']
"""

from typing import Protocol, runtime_checkable

from engine.domain.ports import LLM, TextSink
from engine.domain.records import LLMRequest, LLMResponse

__all__ = ["CallListener", "announced"]


@runtime_checkable
class CallListener(Protocol):
    """Hears each model call as it starts, by its purpose. Must be quick and must not raise."""

    def on_call(self, purpose: str) -> None: ...


class _AnnouncedLLM:
    """Implements the LLM port around `inner`, telling `listener` each call's purpose first."""

    def __init__(self, inner: LLM, listener: CallListener) -> None:
        self.inner = inner
        self._listener = listener

    def complete(self, request: LLMRequest) -> LLMResponse:
        self._listener.on_call(request.purpose)
        return self.inner.complete(request)

    def stream(self, request: LLMRequest, on_text: TextSink) -> LLMResponse:
        self._listener.on_call(request.purpose)
        return self.inner.stream(request, on_text)


def announced(llm: LLM, listener: object) -> LLM:
    """`llm`, announcing its calls to `listener` when the listener hears calls; else `llm`.

    No listener is told apart first: a protocol's isinstance check took 13 us, at every
    decision, most of which have none."""
    if listener is None or not isinstance(listener, CallListener):
        return llm
    return _AnnouncedLLM(llm, listener)
