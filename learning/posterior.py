"""Posterior summaries shared by the policies: Beta moments and Monte Carlo argmax frequencies."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]

# 4,096 draws put the standard error of a propensity near 0.5 at about 0.008, and stay cheap
# (one vectorised gamma call of 4,096 x 2K numbers).
MONTE_CARLO_DRAWS = 4096


def beta_std(alpha: float, beta: float) -> float:
    """Standard deviation of Beta(alpha, beta).

    >>> round(beta_std(1.0, 1.0), 4)
    0.2887
    """
    total = alpha + beta
    return float(np.sqrt(alpha * beta / (total * total * (total + 1.0))))


def argmax_frequencies(samples: FloatArray) -> FloatArray:
    """Share of rows (draws) in which each column (arm) holds the largest value; sums to 1.

    >>> argmax_frequencies(np.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.4], [0.0, 1.0]])).tolist()
    [0.25, 0.75]
    """
    draws, arms = samples.shape
    counts = np.bincount(samples.argmax(axis=1), minlength=arms)
    return counts / float(draws)


def beta_prob_best(
    alpha: FloatArray, beta: FloatArray, rng: np.random.Generator, draws: int = MONTE_CARLO_DRAWS
) -> FloatArray:
    """Monte Carlo probability that each arm's Beta(alpha_i, beta_i) draw is the largest.

    Draws X ~ Gamma(alpha), Y ~ Gamma(beta): X / (X + Y) ~ Beta(alpha, beta), and X / Y is
    monotone in it, so the argmax of X / Y is the argmax of the Beta draws without a division
    per element more than needed.

    >>> p = beta_prob_best(np.array([50.0, 1.0]), np.array([1.0, 50.0]), np.random.default_rng(0))
    >>> p.tolist()
    [1.0, 0.0]
    """
    shape = np.concatenate((alpha, beta))
    gammas = rng.standard_gamma(shape, size=(draws, shape.size))
    arms = alpha.size
    return argmax_frequencies(gammas[:, :arms] / gammas[:, arms:])


def gaussian_prob_best(
    mean: FloatArray, std: FloatArray, rng: np.random.Generator, draws: int = MONTE_CARLO_DRAWS
) -> FloatArray:
    """Monte Carlo probability that each arm's N(mean_i, std_i^2) draw is the largest.

    >>> p = gaussian_prob_best(np.array([0.0, 9.0]), np.array([1.0, 1.0]), np.random.default_rng(0))
    >>> p.tolist()
    [0.0, 1.0]
    """
    noise = rng.standard_normal(size=(draws, mean.size))
    return argmax_frequencies(mean + noise * std)
