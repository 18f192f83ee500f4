import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval.fusion import (
    DEFAULT_FUSION,
    Fusion,
    hybrid_scores,
    ranking,
    reciprocal_rank_fusion,
    top,
)


def test_alpha_zero_is_normalised_keyword_and_one_is_cosine() -> None:
    keyword = {1: 8.0, 2: 2.0}
    vector = {1: 0.1, 2: 0.9}
    assert hybrid_scores(keyword, vector, alpha=0.0) == {1: 1.0, 2: 0.25}
    assert hybrid_scores(keyword, vector, alpha=1.0) == {1: 0.1, 2: 0.9}


def test_passage_found_by_both_beats_one_found_by_either() -> None:
    scores = hybrid_scores({1: 5.0, 2: 5.0}, {2: 0.6, 3: 0.6})
    assert top(scores, 1) == [(2, scores[2])]


def test_negative_cosine_counts_as_zero() -> None:
    assert hybrid_scores({}, {1: -0.4}) == {1: 0.0}


@pytest.mark.parametrize("alpha", [-0.1, 1.1])
def test_alpha_out_of_range_is_refused(alpha: float) -> None:
    with pytest.raises(ValueError, match="alpha"):
        hybrid_scores({}, {}, alpha=alpha)


@given(
    st.dictionaries(st.integers(0, 50), st.floats(0.0, 100.0), max_size=20),
    st.dictionaries(st.integers(0, 50), st.floats(-1.0, 1.0), max_size=20),
    st.floats(0.0, 1.0),
)
def test_hybrid_scores_lie_in_unit_interval(
    keyword: dict[int, float], vector: dict[int, float], alpha: float
) -> None:
    scores = hybrid_scores(keyword, vector, alpha=alpha)
    assert set(scores) == set(keyword) | set(vector)
    assert all(0.0 <= s <= 1.0 for s in scores.values())


def test_rrf_rewards_agreement() -> None:
    scores = reciprocal_rank_fusion([1, 2, 3], [3, 2, 1], [2])
    assert max(scores, key=lambda i: scores[i]) == 2


def test_default_fusion_is_rrf_with_small_k_and_lets_a_clear_first_place_win() -> None:
    # Passage 1 is first for vector search only; passage 2 is eighth in both lists.
    keyword = {10 + rank: 10.0 - rank for rank in range(7)} | {2: 1.0}
    vector = {1: 0.9} | {20 + rank: 0.8 - rank / 100 for rank in range(6)} | {2: 0.1}
    assert Fusion("rrf", k=5.0) == DEFAULT_FUSION
    assert ranking(DEFAULT_FUSION.combine(keyword, vector))[0] == 1
    # With k = 60 the agreement on passage 2 outweighs passage 1's first place.
    assert ranking(Fusion("rrf", k=60).combine(keyword, vector))[0] == 2


def test_convex_fusion_is_the_normalised_weighted_sum() -> None:
    fused = Fusion("convex", alpha=0.25).combine({1: 8.0, 2: 2.0}, {2: 0.8})
    assert fused == hybrid_scores({1: 8.0, 2: 2.0}, {2: 0.8}, alpha=0.25)
    assert Fusion("convex", alpha=0.25).describe() == "convex alpha=0.25"
    assert DEFAULT_FUSION.describe() == "rrf k=5"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"method": "max"}, "fusion method"),
        ({"alpha": 1.5}, "alpha"),
        ({"k": 0}, "k must be > 0"),
        ({"k": -3.0}, "k must be > 0"),
    ],
)
def test_bad_fusion_settings_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Fusion(**kwargs)  # type: ignore[arg-type]


def test_rrf_refuses_a_non_positive_constant() -> None:
    with pytest.raises(ValueError, match="k must be > 0"):
        reciprocal_rank_fusion([1], k=0)


def test_ranking_breaks_ties_by_id() -> None:
    assert ranking({9: 1.0, 2: 1.0, 5: 3.0}) == [5, 2, 9]
