"""A wrapper that keeps the LLM port's promise: only `LLMError`s come out.

The port says adapters raise `LLMError` subclasses, but an adapter bug or a provider SDK can
still leak its own exception. The pipeline degrades on `LLMError` and lets anything else surface
as a bug in its own code, so the guard converts at the one boundary where foreign code runs.

>>> from engine.adapters.llm.scripted import ScriptedLLM
>>> from engine.domain.records import ChatMessage, LLMRequest
>>> def broken(request):
...     raise KeyError("choices")
>>> GuardedLLM(ScriptedLLM(broken)).complete(LLMRequest(messages=(ChatMessage("user", "hi"),)))
Traceback (most recent call last):
...
engine.errors.LLMUnavailableError: the model raised KeyError: 'choices'
"""

from engine.domain.ports import LLM, TextSink
from engine.domain.records import LLMRequest, LLMResponse
from engine.errors import LLMError, LLMUnavailableError


class GuardedLLM:
    """Implements the LLM port around `inner`, turning foreign exceptions into `LLMError`."""

    def __init__(self, inner: LLM) -> None:
        self.inner = inner

    def complete(self, request: LLMRequest) -> LLMResponse:
        try:
            return self.inner.complete(request)
        except LLMError:
            raise
        except Exception as error:  # the boundary with foreign code: see the module docstring
            raise LLMUnavailableError(
                f"the model raised {type(error).__name__}: {error}"
            ) from error

    def stream(self, request: LLMRequest, on_text: TextSink) -> LLMResponse:
        """As `complete`; an exception from `on_text` is the sink's own and passes unchanged."""
        from_sink: list[BaseException] = []

        def forward(text: str) -> None:
            try:
                on_text(text)
            except BaseException as error:
                from_sink.append(error)
                raise

        try:
            return self.inner.stream(request, forward)
        except LLMError:
            raise
        except Exception as error:  # the boundary with foreign code: see the module docstring
            if from_sink and error is from_sink[0]:
                raise  # a listener's bug must surface as itself, not as a model failure
            raise LLMUnavailableError(
                f"the model raised {type(error).__name__}: {error}"
            ) from error
