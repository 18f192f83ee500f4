"""Option likelihood's records and length normalisation."""

import math

import pytest

from engine.domain.likelihood import (
    NORMALISATIONS,
    ContinuationScore,
    Likelihoods,
    best_option,
    normalised_scores,
    option_shares,
)


def likelihoods(*scores: tuple[str, float, int]) -> Likelihoods:
    return Likelihoods(7, tuple(ContinuationScore(*score) for score in scores))


def test_each_normalisation_divides_as_documented() -> None:
    scored = likelihoods((" Paris", -1.2, 2), (" Rome", -0.9, 1))
    assert normalised_scores(scored, "sum") == (-1.2, -0.9)
    assert normalised_scores(scored, "token_mean") == pytest.approx((-0.6, -0.9))
    assert normalised_scores(scored, "char_mean") == pytest.approx((-1.2 / 6, -0.9 / 5))
    assert set(NORMALISATIONS) == {"sum", "token_mean", "char_mean", "calibrated"}


def test_calibration_subtracts_each_options_content_free_likelihood() -> None:
    # " Yes" wins after the question only because the model finds it likely after anything
    scored = likelihoods((" Yes", -0.6, 1), (" No", -0.9, 1))
    prior = likelihoods((" Yes", -0.2, 1), (" No", -1.6, 1))
    assert normalised_scores(scored, "calibrated", baseline=prior) == pytest.approx((-0.4, 0.7))
    assert best_option(scored) == 0
    assert best_option(scored, "calibrated", baseline=prior) == 1
    # the shares are the probabilities over their priors, renormalised (Zhao et al. 2021)
    ratio = math.exp(0.7) / (math.exp(0.7) + math.exp(-0.4))
    assert option_shares(scored, "calibrated", baseline=prior)[1] == pytest.approx(ratio)


def test_calibration_compares_options_of_different_lengths_without_a_mean() -> None:
    # the same tokens after either prompt: the difference is a log ratio, comparable as it is;
    # the long option gains 2.0 over its prior (0.5 a token), the short one 1.0
    scored = likelihoods((" a", -1.0, 1), (" the United Kingdom", -6.0, 4))
    prior = likelihoods((" a", -2.0, 1), (" the United Kingdom", -8.0, 4))
    assert best_option(scored, "sum") == best_option(scored, "token_mean") == 0
    assert best_option(scored, "calibrated", baseline=prior) == 1


def test_calibration_needs_a_baseline_of_the_same_continuations() -> None:
    scored = likelihoods((" Yes", -0.6, 1), (" No", -0.9, 1))
    with pytest.raises(ValueError, match="needs the options' content-free baseline"):
        best_option(scored, "calibrated")
    with pytest.raises(ValueError, match="same continuations, in the same order"):
        best_option(scored, "calibrated", baseline=likelihoods((" No", -1.0, 1), (" Yes", -1.0, 1)))


def test_the_mean_per_token_undoes_the_sums_bias_to_short_options() -> None:
    # A likelier option per token that spends more tokens loses on the raw sum.
    scored = likelihoods((" a", -2.0, 1), (" the United Kingdom", -3.0, 4))
    assert best_option(scored, "sum") == 0
    assert best_option(scored, "token_mean") == 1


def test_one_token_options_are_ranked_by_their_likelihood_under_the_default() -> None:
    # " Yes" is one character longer than " No": dividing by characters would flip this choice.
    scored = likelihoods((" Yes", -0.80, 1), (" No", -0.75, 1))
    assert best_option(scored) == 1
    assert best_option(scored, "sum") == 1
    assert best_option(scored, "char_mean") == 0


def test_equal_scores_choose_the_first_option() -> None:
    assert best_option(likelihoods((" A", -1.0, 1), (" B", -1.0, 1), (" C", -1.0, 1))) == 0


def test_shares_under_the_sum_are_the_renormalised_probabilities() -> None:
    scored = likelihoods((" x", math.log(0.2), 1), (" y", math.log(0.6), 2))
    assert option_shares(scored, "sum") == pytest.approx((0.25, 0.75))
    shares = option_shares(scored)
    assert sum(shares) == pytest.approx(1.0)
    assert shares[1] > shares[0]


def test_forward_passes_count_every_option_token_but_the_first() -> None:
    scored = likelihoods((" a", -1.0, 1), (" b c d", -3.0, 3), (" e f", -2.0, 2))
    assert (scored.forward_passes, scored.forward_tokens) == (3, 7 + 3)
    reused = Likelihoods(7, scored.scores, reused=True)
    assert (reused.forward_passes, reused.forward_tokens) == (3, 0)  # a kept pass ran nothing


@pytest.mark.parametrize(
    ("logprob", "tokens", "message"),
    [(-1.0, 0, "at least one token"), (0.5, 1, "at most 0"), (math.nan, 1, "at most 0")],
)
def test_a_score_holds_its_invariants(logprob: float, tokens: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ContinuationScore(" x", logprob, tokens)


def test_unknown_normalisations_and_empty_scores_are_errors() -> None:
    with pytest.raises(ValueError, match="unknown normalisation 'max'"):
        normalised_scores(likelihoods((" a", -1.0, 1)), "max")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no options were scored"):
        best_option(Likelihoods(3, ()))
