"""Bernoulli Kullback-Leibler divergence and the KL-UCB upper confidence index (vectorised)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from learning.posterior import FloatArray

# Probabilities are clipped this far inside (0, 1) so that kl stays finite at the edges.
_EDGE = 1e-12
# Bisection halves [mean, 1] each step: 40 steps leave an interval below 1e-12.
_BISECTION_STEPS = 40


def kl_bernoulli(p: ArrayLike, q: ArrayLike) -> FloatArray:
    """kl(p, q) = p ln(p/q) + (1-p) ln((1-p)/(1-q)), elementwise, for p, q in [0, 1].

    >>> float(kl_bernoulli(0.5, 0.5))
    0.0
    >>> round(float(kl_bernoulli(0.0, 0.5)), 6)  # ln 2
    0.693147
    """
    p = np.clip(np.asarray(p, dtype=np.float64), _EDGE, 1.0 - _EDGE)
    q = np.clip(np.asarray(q, dtype=np.float64), _EDGE, 1.0 - _EDGE)
    return np.asarray(p * np.log(p / q) + (1.0 - p) * np.log((1.0 - p) / (1.0 - q)))


def kl_ucb_index(means: ArrayLike, pulls: ArrayLike, budget: float) -> FloatArray:
    """max { q in [mean, 1] : pulls * kl(mean, q) <= budget }, elementwise, by bisection.

    The index is the largest mean still statistically compatible with the data at the given
    exploration budget (Garivier & Cappé 2011). kl(mean, .) is increasing on [mean, 1], so
    bisection converges to the boundary.

    >>> index = kl_ucb_index([0.5, 0.5], [10.0, 1000.0], budget=np.log(100.0))
    >>> bool(index[0] > index[1] > 0.5)
    True
    """
    means = np.clip(np.asarray(means, dtype=np.float64), 0.0, 1.0)
    pulls = np.asarray(pulls, dtype=np.float64)
    low, high = means.copy(), np.ones_like(means)
    for _ in range(_BISECTION_STEPS):
        middle = 0.5 * (low + high)
        inside = pulls * kl_bernoulli(means, middle) <= budget
        low = np.where(inside, middle, low)
        high = np.where(inside, high, middle)
    return low
