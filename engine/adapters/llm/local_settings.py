"""How local models are run, and what a loaded model must offer: the contract between the
GGUF adapter (`local_model.py`) and the one module that imports llama.cpp (`llama_runtime.py`),
kept apart so that neither imports the other's module to name it."""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from engine.errors import ConfigError


@dataclass(frozen=True)
class LocalModelSettings:
    """How local models are run; one value per process (see `register_local_provider`)."""

    threads: int = 1  # OFFLINE.md: 2 threads were 3-40x slower when the other core was busy
    # Prompt + completion tokens, one value for every local model of the process: SmolLM2 was
    # trained with 2048, Qwen2.5-Coder with 32768 (its cache costs ~28 KB a token, 115 MB at 4096).
    n_ctx: int = 2048
    n_batch: int = 512
    stop_early: bool = True  # stop free text after its answer line, or once it loops
    repeat_penalty: float = 1.0  # llama.cpp's; 1.0 = none (see the module docstring)
    # Saved states found again by shared prompt prefix (`engine.adapters.llm.prefix_states`);
    # a state is 2-7 MB for SmolLM2's answer prompts (Qwen2.5-Coder's cache per token is about
    # the same, 28 KB against 23 KB); 0 turns the saving off.
    prefix_cache_bytes: int = 64 * 2**20
    # Where a model shipped in chunks is joined (`engine.adapters.llm.chunked_models`); None:
    # the machine's model cache, `chunked_models.default_model_dir()`.
    model_dir: Path | None = None

    def __post_init__(self) -> None:
        if not 1.0 <= self.repeat_penalty <= 2.0:
            raise ConfigError(
                f"local model repeat_penalty must be in [1.0, 2.0], got {self.repeat_penalty}"
            )
        if self.threads < 1:
            raise ConfigError(f"local model threads must be >= 1, got {self.threads}")
        if self.n_ctx < 64:
            raise ConfigError(f"local model n_ctx must be >= 64 tokens, got {self.n_ctx}")
        if self.n_batch < 1:
            raise ConfigError(f"local model n_batch must be >= 1, got {self.n_batch}")
        if self.prefix_cache_bytes < 0:
            raise ConfigError(
                f"local model prefix_cache_bytes must be >= 0, got {self.prefix_cache_bytes}"
            )


class ChatRuntime(Protocol):
    """What `LocalModels` needs of a loaded model: a `Llama` subclass, or a fake in tests."""

    # Polled after every generated token while set; returning True ends the generation.
    stop_requested: Callable[[], bool] | None
    # Polled with the completion text so far, while set; returning True ends the generation.
    text_stop: Callable[[str], bool] | None

    def create_chat_completion(self, **kwargs: Any) -> Mapping[str, Any]: ...
