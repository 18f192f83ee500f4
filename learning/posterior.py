"""Posterior summaries shared by the policies: Beta moments and Monte Carlo argmax frequencies."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]

# The Monte Carlo estimates stop as soon as every arm's standard error is at most
# `STANDARD_ERROR` (0.01: a 95% interval of about +-0.02), drawing in blocks of `BLOCK_DRAWS`
# up to `MONTE_CARLO_DRAWS` (where the error of a probability near 0.5 is 0.008). A decision reads
# P(best) and the propensities of both policies every time, and most posteriors reach the bound
# within one or two blocks, so this keeps the error stated and the hot path short.
MONTE_CARLO_DRAWS = 4096
BLOCK_DRAWS = 1024
STANDARD_ERROR = 0.01


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


def sequential_frequencies(
    sample: Callable[[int], FloatArray], arms: int, max_draws: int = MONTE_CARLO_DRAWS
) -> FloatArray:
    """Argmax frequencies of `sample(n)` (n draws x arms), drawn in blocks until every arm's
    standard error sqrt(p(1 - p) / n) is at most `STANDARD_ERROR`, or `max_draws` are spent.

    >>> rng = np.random.default_rng(0)
    >>> sequential_frequencies(lambda n: rng.normal([0.0, 5.0], 1.0, size=(n, 2)), 2).tolist()
    [0.0, 1.0]
    """
    counts = np.zeros(arms)
    drawn = 0
    while drawn < max_draws:
        block = min(BLOCK_DRAWS, max_draws - drawn)
        counts += np.bincount(sample(block).argmax(axis=1), minlength=arms)
        drawn += block
        shares = counts / drawn
        if float(np.max(shares * (1.0 - shares))) <= STANDARD_ERROR**2 * drawn:
            break
    return counts / drawn


def beta_prob_best(
    alpha: FloatArray, beta: FloatArray, rng: np.random.Generator, draws: int = MONTE_CARLO_DRAWS
) -> FloatArray:
    """Probability that each arm's Beta(alpha_i, beta_i) draw is the largest.

    Arms with equal posteriors are tied by symmetry (exactly 1/K each while nothing is known);
    otherwise a Monte Carlo estimate within `STANDARD_ERROR` (`sequential_frequencies`). Draws
    X ~ Gamma(alpha), Y ~ Gamma(beta): X / (X + Y) ~ Beta(alpha, beta), and X / Y is monotone
    in it, so the argmax of X / Y is the argmax of the Beta draws.

    >>> p = beta_prob_best(np.array([50.0, 1.0]), np.array([1.0, 50.0]), np.random.default_rng(0))
    >>> p.tolist()
    [1.0, 0.0]
    >>> beta_prob_best(np.ones(4), np.ones(4), np.random.default_rng(0)).tolist()
    [0.25, 0.25, 0.25, 0.25]
    """
    arms = alpha.size
    if np.all(alpha == alpha[0]) and np.all(beta == beta[0]):
        return np.full(arms, 1.0 / arms)
    shape = np.concatenate((alpha, beta))

    def sample(count: int) -> FloatArray:
        gammas = rng.standard_gamma(shape, size=(count, shape.size))
        return gammas[:, :arms] / gammas[:, arms:]

    return sequential_frequencies(sample, arms, draws)


def gaussian_prob_best(
    mean: FloatArray, std: FloatArray, rng: np.random.Generator, draws: int = MONTE_CARLO_DRAWS
) -> FloatArray:
    """Probability that each arm's N(mean_i, std_i^2) draw is the largest (Monte Carlo within
    `STANDARD_ERROR`; see `sequential_frequencies`).

    >>> p = gaussian_prob_best(np.array([0.0, 9.0]), np.array([1.0, 1.0]), np.random.default_rng(0))
    >>> p.tolist()
    [0.0, 1.0]
    """
    return sequential_frequencies(
        lambda count: mean + rng.standard_normal(size=(count, mean.size)) * std, mean.size, draws
    )
