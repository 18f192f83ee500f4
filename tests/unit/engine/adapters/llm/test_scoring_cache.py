"""The options' content-free baselines, kept per option set (`CachingOptionScorer`)."""

from collections.abc import Sequence

import pytest

from engine.adapters.llm.local_chat import LocalChat
from engine.adapters.llm.local_model import LocalModels
from engine.adapters.llm.scoring_cache import CachingOptionScorer
from engine.compose import build_option_scorer
from engine.domain.likelihood import ContinuationScore, Likelihoods
from engine.stages.option_procedures import CONTENT_FREE_PROMPT

BASELINE = "Answer:"


class CountingScorer:
    """Every continuation scores minus its length in characters; each pass is recorded."""

    def __init__(self) -> None:
        self.passes: list[tuple[str, tuple[str, ...]]] = []

    def score_continuations(
        self, prompt: str, continuations: Sequence[str], timeout_s: float
    ) -> Likelihoods:
        self.passes.append((prompt, tuple(continuations)))
        scores = tuple(ContinuationScore(text, -float(len(text)), 2) for text in continuations)
        return Likelihoods(4, scores)


def test_an_option_set_seen_before_is_served_in_the_order_asked_with_no_pass() -> None:
    inner = CountingScorer()
    scorer = CachingOptionScorer(inner, frozenset({BASELINE}))
    first = scorer.score_continuations(BASELINE, [" Yes", " No"], 5.0)
    again = scorer.score_continuations(BASELINE, [" No", " Yes"], 5.0)
    assert len(inner.passes) == 1
    assert (first.reused, first.forward_tokens) == (False, 4 + 2)
    assert (again.reused, again.forward_tokens) == (True, 0)
    assert [s.continuation for s in again.scores] == [" No", " Yes"]
    assert [s.logprob for s in again.scores] == [-3.0, -4.0]


def test_a_question_s_own_pass_is_never_kept() -> None:
    inner = CountingScorer()
    scorer = CachingOptionScorer(inner, frozenset({BASELINE}))
    for _ in range(2):
        assert not scorer.score_continuations("Question: 2 + 2?\nAnswer:", [" 4"], 5.0).reused
    assert len(inner.passes) == 2


def test_another_option_set_is_scored_and_the_least_recent_set_leaves_first() -> None:
    inner = CountingScorer()
    scorer = CachingOptionScorer(inner, frozenset({BASELINE}), size=2)
    for options in ([" a", " b"], [" c", " d"], [" a", " b"], [" e"], [" a", " b"], [" c", " d"]):
        scorer.score_continuations(BASELINE, options, 5.0)
    # a-b stayed (used again before e came), c-d left when e came and was scored once more
    assert [continuations for _, continuations in inner.passes] == [
        (" a", " b"),
        (" c", " d"),
        (" e",),
        (" c", " d"),
    ]


def test_a_cache_keeps_at_least_one_set() -> None:
    with pytest.raises(ValueError, match="at least one option set"):
        CachingOptionScorer(CountingScorer(), frozenset({BASELINE}), size=0)


def test_the_composition_root_keeps_the_stage_s_content_free_baselines() -> None:
    scorer = build_option_scorer(LocalChat("local/smollm2", LocalModels()))  # loads nothing
    assert isinstance(scorer, CachingOptionScorer)
    assert scorer.prompts == frozenset({CONTENT_FREE_PROMPT})
