"""The LLM port straight onto the in-process model: `local/...` without litellm in between.

litellm takes 5-7 s to import (most of a served process's start-up on two cores) and, for an
in-process model, only translates: it strips `local/`, calls the custom provider and fills its
response object. `LocalChat` does that translation itself, so a service on the embedded model
never imports litellm. The litellm route (`local_provider.register_local_provider`) is kept for
code that calls `litellm.completion("local/...")` itself; both end in `LocalModels.generate`.

Models are shared per settings in the process (`shared_local_models`): engines built one after
another on the same settings reuse the loaded model instead of loading it again. Engines on
other settings (say, the online evaluation's `stop_early=False`) get their own `LocalModels`,
so one never runs under the other's settings; each loaded copy of the embedded model holds
about 100 MB plus its context.
"""

import atexit
import threading
import time
from collections.abc import Callable

from engine.adapters.llm.local_model import Generation, LocalModels
from engine.adapters.llm.local_scoring import LocalOptionScorer
from engine.adapters.llm.local_settings import LocalModelSettings
from engine.domain.records import LLMRequest, LLMResponse
from engine.errors import LLMError

__all__ = ["PREFIX", "LocalChat", "shared_local_models"]

PREFIX = "local/"

_shared_lock = threading.Lock()
_shared: dict[LocalModelSettings, LocalModels] = {}


def shared_local_models(settings: LocalModelSettings | None = None) -> LocalModels:
    """This process's `LocalModels` for `settings`, made on first use and freed at exit."""
    settings = settings or LocalModelSettings()
    with _shared_lock:
        models = _shared.get(settings)
        if models is None:
            models = _shared[settings] = LocalModels(settings)
            # Free llama.cpp memory before interpreter teardown, where Llama.__del__ fails noisily.
            atexit.register(models.close)
        return models


class LocalChat:
    """Implements the LLM port for `local/<alias>` or `local/<path to a GGUF file>`.

    >>> from engine.adapters.llm.local_model import LocalModels
    >>> LocalChat("local/smollm2", LocalModels())
    LocalChat(model='local/smollm2')
    """

    def __init__(self, model: str, models: LocalModels) -> None:
        name = model.removeprefix(PREFIX)
        if not model.startswith(PREFIX) or not name:
            raise LLMError(f"LocalChat runs local/<model> only, got {model!r}")
        self.model = model
        self.models = models
        self._name = name

    def __repr__(self) -> str:
        return f"LocalChat(model={self.model!r})"

    def load(self) -> None:
        """Load the model file now (a service does this while it starts); idempotent."""
        self.models.load(self._name)

    def option_scorer(self) -> LocalOptionScorer:
        """Option likelihood on this same model (the `OptionScorer` port)."""
        return LocalOptionScorer(self.models, self._name)

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Generate one chat completion; raises only `LLMError` subclasses."""
        started = time.perf_counter()
        generation = self.models.generate(
            self._name,
            _plain(request),
            max_tokens=request.max_tokens,
            timeout_s=request.timeout_s,
            temperature=request.temperature,
            seed=request.seed,
            json_schema=request.json_schema,
        )
        return self._response(generation, started)

    def stream(self, request: LLMRequest, on_text: Callable[[str], None]) -> LLMResponse:
        """`complete`, handing each piece of text to `on_text` as the model writes it."""
        if request.json_schema is not None:
            raise LLMError("the local model streams free text only; drop json_schema")
        started = time.perf_counter()
        pieces = self.models.stream(
            self._name,
            _plain(request),
            max_tokens=request.max_tokens,
            timeout_s=request.timeout_s,
            temperature=request.temperature,
            seed=request.seed,
        )
        try:
            for piece in pieces:
                if isinstance(piece, str):
                    on_text(piece)
                    continue
                return self._response(piece, started)
        finally:  # a stream left midway (on_text raised) frees the model now, not at GC
            pieces.close()
        raise LLMError(f"{self.model} ended its stream without a result")

    def _response(self, generation: Generation, started: float) -> LLMResponse:
        return LLMResponse(
            text=generation.text,
            model=self.model,
            prompt_tokens=generation.prompt_tokens,
            completion_tokens=generation.completion_tokens,
            seconds=time.perf_counter() - started,
            cost_usd=0.0,  # in-process generation costs no money
            finish_reason=generation.finish_reason,
        )


def _plain(request: LLMRequest) -> list[dict[str, str]]:
    return [{"role": message.role, "content": message.content} for message in request.messages]
