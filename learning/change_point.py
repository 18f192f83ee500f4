"""The Bernoulli generalized likelihood ratio (GLR) change-point test of Besson et al. (2022)."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from learning.kl import kl_bernoulli


def bernoulli_glr(
    cumulative_weights: ArrayLike, cumulative_sums: ArrayLike, max_splits: int | None = None
) -> float:
    """Largest GLR statistic over the splits of one arm's observations into before / after.

    With W_s, S_s the weight and reward sum of the first s observations, W, S of all of them and
    mu = S / W, the statistic of split s is::

        W_s kl(S_s / W_s, mu) + (W - W_s) kl((S - S_s) / (W - W_s), mu)

    the log-likelihood gain of two Bernoulli segments over one (kl: Bernoulli divergence).
    With `max_splits`, only about that many splits are tried, evenly spaced and anchored at the
    newest observation (Besson et al.'s subsampling of split points): the cost of a test stays
    bounded while a fresh change is still seen at once.

    >>> steady = np.cumsum(np.ones(100)), np.cumsum(np.tile([0.0, 1.0], 50))
    >>> jump = np.cumsum(np.ones(100)), np.cumsum(np.r_[np.zeros(50), np.ones(50)])
    >>> bernoulli_glr(*steady) < 1.0 < 30.0 < bernoulli_glr(*jump)
    True
    """
    weights = np.asarray(cumulative_weights, dtype=np.float64)
    sums = np.asarray(cumulative_sums, dtype=np.float64)
    if weights.size < 2:
        return 0.0
    total_weight, total_sum = weights[-1], sums[-1]
    mean = total_sum / total_weight
    before_weight, before_sum = weights[:-1], sums[:-1]
    if max_splits is not None and before_weight.size > max_splits:
        stride = -(-before_weight.size // max_splits)  # ceiling division
        before_weight, before_sum = before_weight[::-stride], before_sum[::-stride]
    after_weight = total_weight - before_weight
    after_sum = total_sum - before_sum
    statistic = before_weight * kl_bernoulli(before_sum / before_weight, mean)
    statistic += after_weight * kl_bernoulli(after_sum / after_weight, mean)
    return float(statistic.max())


def glr_threshold(observations: float, confidence: float) -> float:
    """beta(n, delta) = ln(3 n^(3/2) / delta): the practical threshold of Besson et al. (2022).

    A stationary arm crosses it with probability at most about delta over its whole history.

    >>> round(glr_threshold(100, 0.01), 3)
    12.612
    """
    return math.log(3.0 * observations**1.5 / confidence)
