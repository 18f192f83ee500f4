import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval.fusion import hybrid_scores, reciprocal_rank_fusion, top


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
