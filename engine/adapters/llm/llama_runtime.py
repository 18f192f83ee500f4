"""llama-cpp-python behind the local model adapter: loading a GGUF file, and the stop hooks.

Kept apart from `engine.adapters.llm.local_model` (the locking, deadlines and generation rules)
because it is the one part that imports llama.cpp, and only when a model is loaded.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from engine.errors import LLMUnavailableError

if TYPE_CHECKING:
    from engine.adapters.llm.local_settings import ChatRuntime, LocalModelSettings

__all__ = ["compile_json_schema_grammar", "load_llama"]


def compile_json_schema_grammar(schema_json: str) -> object:
    """Compile a JSON schema into a llama.cpp grammar (raises on schemas it cannot express)."""
    from llama_cpp.llama_grammar import LlamaGrammar  # noqa: PLC0415 - llama.cpp loads only when used

    return LlamaGrammar.from_json_schema(schema_json, verbose=False)


def load_llama(path: Path, settings: LocalModelSettings) -> ChatRuntime:
    """Load a GGUF file with llama-cpp-python; raise `LLMUnavailableError` if it cannot."""
    try:
        llama_class = _deadline_llama_class()
    except ImportError as exc:
        raise LLMUnavailableError(
            f"local models need llama-cpp-python ({exc}): pip install 'thinkpath[local]'"
        ) from exc
    try:
        runtime: ChatRuntime = llama_class(
            model_path=str(path),
            n_ctx=settings.n_ctx,
            n_batch=settings.n_batch,
            n_threads=settings.threads,
            n_threads_batch=settings.threads,
            verbose=False,
        )
    except (ValueError, RuntimeError, OSError) as exc:
        raise LLMUnavailableError(
            f"llama.cpp could not load {path}: {exc}; is it a valid GGUF file?"
        ) from exc
    return runtime


@cache
def _deadline_llama_class() -> type[Any]:
    """`Llama` with a stop hook polled after every token (defined lazily: llama.cpp is heavy)."""
    from llama_cpp import Llama, StoppingCriteriaList, llama_get_logits_ith  # noqa: PLC0415

    class DeadlineLlama(Llama):
        stop_requested: Callable[[], bool] | None = None
        text_stop: Callable[[str], bool] | None = None

        def create_completion(self, *args: Any, **kwargs: Any) -> Any:
            criteria = StoppingCriteriaList(kwargs.get("stopping_criteria") or [])
            hook = self.stop_requested
            if hook is not None:
                criteria.insert(0, lambda _ids, _logits: hook())
            text_hook = self.text_stop
            if text_hook is not None:
                criteria.append(self._text_criterion(text_hook))
            if criteria:
                kwargs["stopping_criteria"] = criteria
            return super().create_completion(*args, **kwargs)

        def next_token_logprobs(self) -> Any:
            """Log-probabilities of the token after the last one evaluated (a float32 array).

            Read from llama.cpp's output row: `Llama.eval` keeps no logits unless the model was
            built with `logits_all`, which would hold n_ctx x n_vocab floats (~400 MB for
            SmolLM2) for a score that needs one row at a time.
            """
            row = llama_get_logits_ith(self.ctx, -1)
            logits = np.ctypeslib.as_array(row, shape=(self.n_vocab(),))
            return Llama.logits_to_logprobs(logits)

        def _text_criterion(self, text_hook: Callable[[str], bool]) -> Callable[..., bool]:
            """A criterion on the completion text: the ids it sees start with the prompt."""
            start: list[int] = []  # the prompt length, learnt on the first poll

            def criterion(ids: Any, _logits: Any) -> bool:
                if not start:
                    start.append(len(ids))
                    return False
                text = self.detokenize(list(ids[start[0] :])).decode("utf-8", errors="ignore")
                return text_hook(text)

            return criterion

    return DeadlineLlama
