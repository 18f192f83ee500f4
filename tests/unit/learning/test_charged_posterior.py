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


def dense_grid(alpha: np.ndarray, beta: np.ndarray, charges: np.ndarray) -> np.ndarray:
    """P(best) on a 100,000-point grid over every arm's whole support: the reference."""
    low, high, cells = float((-charges).min()), float((1.0 - charges).max()), 100_000
    values = low + (np.arange(cells) + 0.5) * ((high - low) / cells)
    x = values[None, :] + charges[:, None]
    inside = (x > 0.0) & (x < 1.0)
    safe = np.where(inside, x, 0.5)
    density = np.where(
        inside, safe ** (alpha[:, None] - 1.0) * (1.0 - safe) ** (beta[:, None] - 1.0), 0.0
    )
    mass = density / density.sum(axis=1, keepdims=True)
    cdf = np.cumsum(mass, axis=1) - 0.5 * mass
    others = np.prod(cdf, axis=0, keepdims=True) / np.maximum(cdf, 1e-300) * mass
    best: np.ndarray = others.sum(axis=1)
    normalised: np.ndarray = best / best.sum()
    return normalised


def test_an_arm_that_never_failed_is_integrated_up_to_where_its_charge_ends_it() -> None:
    # beta = 1: the density is largest (alpha) at the top of the support, where a charge cuts
    # it off mid-cell; integrating that cell whole or not at all erred by 0.016 here.
    alpha = np.array([13.47, 15.6, 4.62, 6.73, 11.82, 6.26, 10.01, 14.75, 1.0])
    beta = np.array([14.2, 2.69, 12.01, 8.67, 1.0, 2.56, 1.0, 5.79, 5.41])
    charges = np.array([0.057, 0.194, 0.173, 0.004, 0.244, 0.14, 0.236, 0.225, 0.0])
    exact = charged_beta_prob_best(alpha, beta, charges, np.random.default_rng(0))
    assert np.abs(exact - dense_grid(alpha, beta, charges)).max() < 0.004


@pytest.mark.parametrize("seed", range(6))
def test_the_quadrature_keeps_within_a_few_thousandths_of_a_dense_grid(seed: int) -> None:
    # The uncharged quadrature's own error on such posteriors is up to 0.009 (64 points, where a
    # density is steep at the end of its support); Monte Carlo's stated error is 0.01.
    rng = np.random.default_rng(100 + seed)
    arms = 20
    alpha = 1.0 + rng.uniform(0, 15, arms) * (rng.random(arms) < 0.8)  # some never succeeded
    beta = 1.0 + rng.uniform(0, 15, arms) * (rng.random(arms) < 0.8)  # or never failed
    # charges as the engine's stand-in model gives (microseconds) and as a real one does
    charges = rng.uniform(0, 2e-4 if seed % 2 else 0.25, arms)
    exact = charged_beta_prob_best(alpha, beta, charges, rng)
    assert np.abs(exact - dense_grid(alpha, beta, charges)).max() < 0.005
