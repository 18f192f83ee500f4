"""Option likelihood on the in-process model: each continuation's log-probability after a prompt.

The prompt is evaluated once and its key/value cache kept; each continuation is then read from
that point, one token at a time, by rewinding the context to the prompt's end (`Llama.eval`
drops every cached position from `n_tokens` on before it decodes). A continuation of k tokens
costs k - 1 single-token passes: its first token's probability is in the prompt's pass, and its
last token is never evaluated. A prompt that shares a prefix with what the context already holds
(the same question with other options, or a generation just before) evaluates only the rest.

Tokens: the prompt is plain text, tokenized with the model's beginning-of-sequence token and
with special-token markup read as text, so a question cannot smuggle control tokens in. As in
lm-evaluation-harness, white space at the prompt's end moves to the front of each continuation
(" Paris", not "Paris" after "is "), which is how the model saw such text in training.

How scores of options of different lengths are compared is `engine.domain.likelihood`'s part.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, Protocol

from engine.adapters.llm.prefix_states import shared_prefix
from engine.domain.likelihood import ContinuationScore, Likelihoods
from engine.errors import LLMError, LLMTimeoutError

__all__ = ["LocalOptionScorer", "ScoringRuntime", "score_continuations"]


class ScoringRuntime(Protocol):
    """What scoring needs of a loaded model: `llama_runtime`'s `Llama` subclass, or a fake."""

    n_tokens: int
    input_ids: Any  # the tokens the context holds, in its first n_tokens places

    def tokenize(self, text: bytes, add_bos: bool = True, special: bool = False) -> list[int]: ...

    def eval(self, tokens: Sequence[int]) -> None: ...

    def n_ctx(self) -> int: ...

    def next_token_logprobs(self) -> Any:
        """Log-probabilities over the vocabulary after the last evaluated token."""
        ...


def score_continuations(
    runtime: ScoringRuntime,
    prompt: str,
    continuations: Sequence[str],
    past_deadline: Callable[[], bool] = lambda: False,
) -> Likelihoods:
    """Each continuation's total log-probability and token count after `prompt`, in order.

    `past_deadline` is polled before every forward pass. Raises `LLMError` for an empty prompt
    or continuation or one that does not fit the context, `LLMTimeoutError` past the deadline.
    """
    body = prompt.rstrip()
    if not body:
        raise LLMError("option likelihood needs a prompt to score continuations after")
    if not continuations:
        raise LLMError("option likelihood needs at least one continuation")
    space = prompt[len(body) :]
    prompt_ids = runtime.tokenize(body.encode("utf-8"), add_bos=True, special=False)
    continuation_ids = [_continuation_tokens(runtime, space + text) for text in continuations]
    longest = max(len(ids) for ids in continuation_ids)
    if len(prompt_ids) + longest > runtime.n_ctx():
        raise LLMError(
            f"option likelihood: {len(prompt_ids)} prompt tokens and a {longest}-token option "
            f"do not fit the model's context of {runtime.n_ctx()} tokens"
        )
    _poll(past_deadline)
    _evaluate_prompt(runtime, prompt_ids)
    after_prompt = runtime.next_token_logprobs().copy()  # the next decode overwrites the row
    scores = []
    for text, ids in zip(continuations, continuation_ids, strict=True):
        total = float(after_prompt[ids[0]])
        runtime.n_tokens = len(prompt_ids)  # rewind: eval drops the cache from here on
        for previous, token in pairwise(ids):
            _poll(past_deadline)
            runtime.eval([previous])
            total += float(runtime.next_token_logprobs()[token])
        scores.append(ContinuationScore(text, total, len(ids)))
    return Likelihoods(len(prompt_ids), tuple(scores))


def _continuation_tokens(runtime: ScoringRuntime, text: str) -> list[int]:
    ids = runtime.tokenize(text.encode("utf-8"), add_bos=False, special=False)
    if not ids:
        raise LLMError(f"option likelihood cannot score the empty continuation {text!r}")
    return ids


def _evaluate_prompt(runtime: ScoringRuntime, prompt_ids: list[int]) -> None:
    """Evaluate the prompt, reusing the prefix the context already holds.

    At least its last token is evaluated again, so that the output row is the prompt's.
    """
    shared = shared_prefix(runtime.input_ids[: runtime.n_tokens], prompt_ids)
    runtime.n_tokens = min(shared, len(prompt_ids) - 1)
    runtime.eval(prompt_ids[runtime.n_tokens :])


def _poll(past_deadline: Callable[[], bool]) -> None:
    if past_deadline():
        raise LLMTimeoutError("option likelihood passed its deadline")


class NamedScoring(Protocol):
    """`LocalModels.score_continuations`: scoring on a local model chosen by name."""

    def score_continuations(
        self, name: str, prompt: str, continuations: Sequence[str], *, timeout_s: float
    ) -> Likelihoods: ...


@dataclass(frozen=True)
class LocalOptionScorer:
    """The `OptionScorer` port on one local model: `LocalOptionScorer(models, "smollm2")`."""

    models: NamedScoring
    name: str

    def score_continuations(
        self, prompt: str, continuations: Sequence[str], timeout_s: float
    ) -> Likelihoods:
        return self.models.score_continuations(
            self.name, prompt, continuations, timeout_s=timeout_s
        )
