"""Option likelihood on a fake model whose next-token distribution depends on the whole context.

Because every distribution depends on all the tokens before it, a score read after a wrong
rewind, a stale cache or an overwritten output row differs from the reference.
"""

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine.adapters.llm.local_model import LocalModels
from engine.adapters.llm.local_scoring import LocalOptionScorer, score_continuations
from engine.domain.likelihood import Likelihoods
from engine.errors import LLMError, LLMTimeoutError, LLMUnavailableError

VOCABULARY = 128
BOS = 1


def distribution(context: Sequence[int]) -> np.ndarray:
    """The fake model: log-probabilities over the vocabulary, a function of the whole context."""
    logits = np.random.default_rng([int(token) for token in context]).normal(size=VOCABULARY)
    logprobs: np.ndarray = logits - np.log(np.exp(logits).sum())
    return logprobs


def reference(prompt: str, continuation: str) -> float:
    context = [BOS, *tokens_of(prompt)]
    total = 0.0
    for token in tokens_of(continuation):
        total += float(distribution(context)[token])
        context.append(token)
    return total


def tokens_of(text: str) -> list[int]:
    return [ord(character) for character in text]  # one token per (ASCII) character


class FakeScoringRuntime:
    """llama.cpp's contract as scoring uses it: a context of n_tokens, eval, one output row."""

    def __init__(self, n_ctx: int = 512) -> None:
        self.input_ids = np.zeros(n_ctx, dtype=np.intc)
        self.n_tokens = 0
        self.evaluated: list[list[int]] = []
        self.stop_requested: Any = None
        self.text_stop: Any = None
        self._n_ctx = n_ctx
        self._row = np.zeros(VOCABULARY)  # overwritten by every eval, as llama.cpp's is

    def tokenize(self, text: bytes, add_bos: bool = True, special: bool = False) -> list[int]:
        assert not special
        return ([BOS] if add_bos else []) + tokens_of(text.decode("utf-8"))

    def eval(self, tokens: Sequence[int]) -> None:
        self.evaluated.append(list(tokens))
        for token in tokens:
            self.input_ids[self.n_tokens] = token
            self.n_tokens += 1
        self._row[:] = distribution(self.input_ids[: self.n_tokens].tolist())

    def n_ctx(self) -> int:
        return self._n_ctx

    def next_token_logprobs(self) -> np.ndarray:
        return self._row

    def create_chat_completion(self, **kwargs: Any) -> Any:
        raise AssertionError("scoring generates nothing")


def test_each_score_is_the_continuations_log_probability_after_the_prompt() -> None:
    continuations = ["Paris", "Rome is far", "x"]
    scored = score_continuations(FakeScoringRuntime(), "Capital:", continuations)
    assert [score.continuation for score in scored.scores] == continuations
    assert [score.tokens for score in scored.scores] == [5, 11, 1]
    for score in scored.scores:
        assert score.logprob == pytest.approx(reference("Capital:", score.continuation))
    assert scored.prompt_tokens == 9  # the beginning-of-sequence token and 8 characters


def test_the_prompt_is_evaluated_once_and_each_option_costs_its_length_less_one() -> None:
    runtime = FakeScoringRuntime()
    scored = score_continuations(runtime, "Q?", ["abc", "d", "ef"])
    assert runtime.evaluated[0] == [BOS, *tokens_of("Q?")]
    assert all(len(batch) == 1 for batch in runtime.evaluated[1:])
    assert len(runtime.evaluated) - 1 == scored.forward_passes == 2 + 0 + 1


def test_white_space_ending_the_prompt_starts_each_continuation() -> None:
    with_space = score_continuations(FakeScoringRuntime(), "It is ", ["hot"])
    moved = score_continuations(FakeScoringRuntime(), "It is", [" hot"])
    assert with_space.scores[0].logprob == moved.scores[0].logprob
    assert with_space.scores[0].tokens == 4
    assert with_space.scores[0].continuation == "hot"


def test_a_prompt_the_context_already_holds_is_not_evaluated_again() -> None:
    runtime = FakeScoringRuntime()
    first = score_continuations(runtime, "Same question", ["yes", "no"])
    runtime.evaluated.clear()
    again = score_continuations(runtime, "Same question", ["yes", "no"])
    assert runtime.evaluated[0] == tokens_of("n")  # only the prompt's last token, for its row
    assert again == first
    longer = score_continuations(runtime, "Same question, longer", ["yes"])
    assert longer.scores[0].logprob == pytest.approx(reference("Same question, longer", "yes"))


@pytest.mark.parametrize(
    ("prompt", "continuations", "message"),
    [
        ("  ", ["a"], "needs a prompt"),
        ("Q", [], "at least one continuation"),
        ("Q", ["a", ""], "empty continuation"),
        ("Q" * 20, ["a" * 20], "do not fit the model's context of 32 tokens"),
    ],
)
def test_what_cannot_be_scored_is_an_error(
    prompt: str, continuations: list[str], message: str
) -> None:
    with pytest.raises(LLMError, match=message):
        score_continuations(FakeScoringRuntime(n_ctx=32), prompt, continuations)


def test_scoring_stops_at_its_deadline() -> None:
    polls: list[int] = []

    def past_deadline() -> bool:
        polls.append(1)
        return len(polls) > 2

    runtime = FakeScoringRuntime()
    with pytest.raises(LLMTimeoutError, match="deadline"):
        score_continuations(runtime, "Q", ["abcdef"], past_deadline)
    assert len(runtime.evaluated) == 2  # the prompt and one option token, then it stopped


@pytest.fixture
def gguf(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF")
    return path


def test_the_local_models_score_under_the_models_lock_and_deadline(gguf: Path) -> None:
    runtime = FakeScoringRuntime()
    models = LocalModels(loader=lambda path, settings: runtime)
    scorer = LocalOptionScorer(models, str(gguf))
    scored = scorer.score_continuations("Capital:", ["Paris", "Rome"], timeout_s=5)
    assert isinstance(scored, Likelihoods)
    assert scored.scores[1].logprob == pytest.approx(reference("Capital:", "Rome"))
    assert runtime.stop_requested is None  # the turn is over: the lock and hooks are released
    passed = LocalModels(loader=lambda path, settings: FakeScoringRuntime(), clock=iter_clock())
    with pytest.raises(LLMTimeoutError):
        passed.score_continuations(str(gguf), "Q", ["abc"], timeout_s=1.5)


def iter_clock() -> Any:
    ticks = iter(float(second) for second in range(1000))
    return lambda: next(ticks)


def test_a_model_without_log_probabilities_cannot_score(gguf: Path) -> None:
    class ChatOnly:
        stop_requested: Any = None
        text_stop: Any = None

        def create_chat_completion(self, **kwargs: Any) -> Any:
            raise AssertionError("not called")

    models = LocalModels(loader=lambda path, settings: ChatOnly())
    with pytest.raises(LLMUnavailableError, match="without log-probabilities"):
        models.score_continuations(str(gguf), "Q", ["a"], timeout_s=5)
