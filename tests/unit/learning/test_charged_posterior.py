"""The charged draw's propensities: quadrature and sampling agree with the draws themselves."""

import numpy as np
import pytest

from learning.posterior import charged_beta_prob_best, charged_draw


def draw_shares(alpha: np.ndarray, beta: np.ndarray, charges: np.ndarray, n: int) -> np.ndarray:
    rng = np.random.default_rng(3)
    picks = [charged_draw(alpha, beta, charges, rng) for _ in range(n)]
    return np.bincount(picks, minlength=alpha.size) / n


@pytest.mark.parametrize("seed", range(4))
def test_the_propensities_are_the_charged_draws_own_frequencies(seed: int) -> None:
    rng = np.random.default_rng(seed)
    arms = 6
    alpha = 1.0 + rng.integers(0, 30, arms).astype(np.float64)
    beta = 1.0 + rng.integers(0, 10, arms).astype(np.float64)
    charges = rng.uniform(0.0, 0.25, arms)
    exact = charged_beta_prob_best(alpha, beta, charges, rng)
    assert exact.sum() == pytest.approx(1.0)
    assert np.abs(exact - draw_shares(alpha, beta, charges, 20_000)).max() < 0.015


def test_below_one_the_propensities_are_sampled_and_still_agree() -> None:
    alpha, beta = np.array([0.5, 2.0, 1.0]), np.array([0.5, 1.0, 3.0])
    charges = np.array([0.0, 0.3, 0.05])
    sampled = charged_beta_prob_best(alpha, beta, charges, np.random.default_rng(1))
    assert np.abs(sampled - draw_shares(alpha, beta, charges, 20_000)).max() < 0.025


def test_an_arm_that_can_never_lead_gets_nothing_and_equal_charges_change_nothing() -> None:
    alpha, beta = np.array([200.0, 200.0]), np.array([2.0, 2.0])
    far = charged_beta_prob_best(alpha, beta, np.array([0.0, 0.5]), np.random.default_rng(0))
    assert far.tolist() == [1.0, 0.0]
    even = charged_beta_prob_best(alpha, beta, np.array([0.3, 0.3]), np.random.default_rng(0))
    assert even.tolist() == [0.5, 0.5]
