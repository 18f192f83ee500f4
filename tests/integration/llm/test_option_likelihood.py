"""Option likelihood on the real SmolLM2-135M, in-process: the model loads once per module."""

from collections.abc import Iterator

import pytest

from engine.adapters.llm.local_model import LocalModels, resolve_model_path
from engine.adapters.llm.local_scoring import LocalOptionScorer
from engine.domain.likelihood import best_option
from engine.domain.records import ChatMessage

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def local_models() -> Iterator[LocalModels]:
    models = LocalModels()
    yield models
    models.close()


@pytest.fixture(scope="module")
def scorer(local_models: LocalModels) -> LocalOptionScorer:
    return LocalOptionScorer(local_models, "smollm2")


def test_the_likelier_continuation_scores_higher(scorer: LocalOptionScorer) -> None:
    scored = scorer.score_continuations(
        "The capital of France is", ["Paris", "Banana"], timeout_s=60
    )
    paris, banana = scored.scores
    assert paris.logprob > banana.logprob
    assert best_option(scored) == 0
    assert best_option(scored, "sum") == 0
    assert scored.prompt_tokens > 0
    assert paris.tokens >= 1
    assert banana.tokens >= 1


def test_scores_match_llama_cpps_own_log_probabilities(scorer: LocalOptionScorer) -> None:
    """The rewinding, cached path gives what one pass over prompt and option with every row's
    logits kept (`logits_all`, a second small context of the same file) gives."""
    from llama_cpp import Llama  # only this check builds a second context

    prompt = "Question: Which is larger, 0.7 or 0.65?\nAnswer:"
    options = [" 0.7 is larger", " 0.65"]
    scored = scorer.score_continuations(prompt, options, timeout_s=60)
    reference = Llama(
        model_path=str(resolve_model_path("smollm2")),
        n_ctx=128,
        logits_all=True,
        verbose=False,
    )
    try:
        for score in scored.scores:
            prompt_ids = reference.tokenize(prompt.encode(), add_bos=True)
            option_ids = reference.tokenize(score.continuation.encode(), add_bos=False)
            reference.reset()
            reference.eval(prompt_ids + option_ids)
            rows = Llama.logits_to_logprobs(reference.scores[: reference.n_tokens])
            expected = sum(
                float(rows[len(prompt_ids) - 1 + index][token])
                for index, token in enumerate(option_ids)
            )
            assert score.tokens == len(option_ids)
            # One batch against single-token passes: the quantised kernels round the two
            # differently (~0.01 nats over six tokens); a wrong context is off by whole nats.
            assert score.logprob == pytest.approx(expected, abs=0.02)
    finally:
        reference.close()


def test_a_generation_after_scoring_is_what_it_was_before(local_models: LocalModels) -> None:
    messages = [ChatMessage("user", "Name a fruit.")]
    chat = [{"role": message.role, "content": message.content} for message in messages]
    before = local_models.generate("smollm2", chat, max_tokens=8, timeout_s=60)
    local_models.score_continuations(
        "smollm2", "Name a fruit.", [" apple", " a banana split"], timeout_s=60
    )
    after = local_models.generate("smollm2", chat, max_tokens=8, timeout_s=60)
    assert after.text == before.text
