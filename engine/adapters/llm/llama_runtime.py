"""llama-cpp-python behind the local model adapter: loading a GGUF file, and the stop hooks.

Kept apart from `engine.adapters.llm.local_model` (the locking, deadlines and generation rules)
because it is the one part that imports llama.cpp, and only when a model is loaded.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from engine.adapters.llm.prefix_states import PrefixStates, SavedState, shared_prefix
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
        runtime = llama_class(
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
    runtime.prefix_states = PrefixStates(settings.prefix_cache_bytes)
    return cast("ChatRuntime", runtime)


@cache
def _deadline_llama_class() -> type[Any]:
    """`Llama` with a stop hook polled after every token (defined lazily: llama.cpp is heavy)."""
    from llama_cpp import Llama, StoppingCriteriaList, llama_get_logits_ith  # noqa: PLC0415

    class DeadlineLlama(Llama):
        stop_requested: Callable[[], bool] | None = None
        text_stop: Callable[[str], bool] | None = None
        prefix_states: PrefixStates[Any] = PrefixStates(0)  # off until `load_llama` sets one

        def generate(self, tokens: Sequence[int], *args: Any, **kwargs: Any) -> Any:
            """llama.cpp's generation, from the saved state that shares the longest prefix
            with `tokens` where that beats what the context holds (`prefix_states`)."""
            if kwargs.get("reset", True):  # a generation that continues the context reuses it
                reuse_saved_prefix(self, list(tokens))
            return super().generate(tokens, *args, **kwargs)

        def create_completion(self, *args: Any, **kwargs: Any) -> Any:
            criteria = StoppingCriteriaList(kwargs.get("stopping_criteria") or [])
            hook = self.stop_requested
            if hook is not None:
                criteria.insert(0, lambda _ids, _logits: hook())
            text_hook = self.text_stop
            if text_hook is not None:
                criteria.append(_text_criterion(self, text_hook))
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

    return DeadlineLlama


def _text_criterion(llama: Any, text_hook: Callable[[str], bool]) -> Callable[..., bool]:
    """A criterion on the completion text: the ids it sees start with the prompt."""
    start: list[int] = []  # the prompt length, learnt on the first poll

    def criterion(ids: Any, _logits: Any) -> bool:
        if not start:
            start.append(len(ids))
            return False
        text = llama.detokenize(list(ids[start[0] :])).decode("utf-8", errors="ignore")
        return text_hook(text)

    return criterion


def reuse_saved_prefix(llama: Any, tokens: list[int]) -> None:
    """Before `llama` evaluates `tokens`: save what its context holds if `tokens` would cut it
    short, and restore the saved state sharing the longest prefix with `tokens` where that beats
    the context (`engine.adapters.llm.prefix_states`)."""
    states: PrefixStates[Any] = llama.prefix_states
    held = llama.input_ids[: llama.n_tokens]
    if states.worth_keeping(held, tokens):
        states.keep(_saved_state(llama))
    saved = states.worth_restoring(tokens, live=shared_prefix(held, tokens))
    if saved is not None:
        _restore(llama, saved)


def _saved_state(llama: Any) -> SavedState[Any]:
    # Only llama.cpp's own state and the tokens: llama-cpp-python's `save_state` also copies a
    # row of logits per token (n_vocab floats each, 10 MB for 55 tokens) that nothing reads
    # again, since the generation evaluates at least the last token afresh.
    from llama_cpp import llama_state_get_data, llama_state_get_size  # noqa: PLC0415

    size = llama_state_get_size(llama.ctx)
    buffer = (ctypes.c_uint8 * size)()
    written = int(llama_state_get_data(llama.ctx, buffer, size))
    tokens = tuple(int(token) for token in llama.input_ids[: llama.n_tokens])
    return SavedState(tokens, (buffer, written), size=written)


def _restore(llama: Any, saved: SavedState[Any]) -> None:
    from llama_cpp import llama_state_set_data  # noqa: PLC0415

    buffer, written = saved.state
    if llama_state_set_data(llama.ctx, buffer, written) != written:
        llama.reset()  # the context evaluates the whole prompt, as it would with no state
        return
    llama.input_ids[: len(saved.tokens)] = saved.tokens
    llama.n_tokens = len(saved.tokens)
    llama._requires_eval = True  # the next token's logits come from a live decode
