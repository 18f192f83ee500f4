"""Posterior summaries shared by the policies: Beta moments, P(best) by quadrature for Beta
posteriors, and Monte Carlo argmax frequencies for the rest."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from math import lgamma

import numpy as np
from numpy.typing import NDArray

from learning.errors import PolicyError

FloatArray = NDArray[np.float64]
_add, _maximum, _minimum = np.add, np.maximum, np.minimum

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
    alpha: FloatArray,
    beta: FloatArray,
    rng: np.random.Generator | Callable[[], np.random.Generator],
    draws: int = MONTE_CARLO_DRAWS,
) -> FloatArray:
    """Probability that each arm's Beta(alpha_i, beta_i) draw is the largest.

    Arms with equal posteriors are tied by symmetry (exactly 1/K each while nothing is known).
    Otherwise, while `EXACT` holds and every parameter is at least 1, by quadrature
    (`beta_prob_best_quadrature`: against a dense grid, a median error of 0.0005 and at most
    0.009 over 300 random posteriors of 2-20 arms); else by Monte Carlo within
    `STANDARD_ERROR` (`beta_prob_best_sampled`, using `rng` and at most `draws` draws).

    `rng` may be a function that makes the generator: it is called only when sampling. Why: the
    policies derive it by jumping their own stream (`Policy._side_rng`, 0.02-0.1 ms), three times
    a decision, where quadrature, the usual case, needs no generator at all.

    >>> p = beta_prob_best(np.array([50.0, 1.0]), np.array([1.0, 50.0]), np.random.default_rng(0))
    >>> p.round(6).tolist()
    [1.0, 0.0]
    >>> beta_prob_best(np.ones(4), np.ones(4), np.random.default_rng(0)).tolist()
    [0.25, 0.25, 0.25, 0.25]
    """
    arms = alpha.size
    # As Python floats: a decision's 2-20 arms are read faster by `min` on a list than by
    # numpy's reductions (2-4 us a call inside a decision, six of them here).
    alphas, betas = alpha.tolist(), beta.tolist()
    if not math.isfinite(sum(alphas) + sum(betas)):  # `min` and `max` would skip a NaN
        raise PolicyError(f"Beta parameters must be finite, got {alphas} and {betas}")
    lowest_alpha, lowest_beta = min(alphas), min(betas)
    if lowest_alpha == max(alphas) and lowest_beta == max(betas):
        return np.full(arms, 1.0 / arms)
    if EXACT and min(lowest_alpha, lowest_beta) >= 1.0:
        return _quadrature(alpha, beta, _grid(alphas, betas))
    generator = rng if isinstance(rng, np.random.Generator) else rng()
    return beta_prob_best_sampled(alpha, beta, generator, draws)


# Quadrature is the default: on the decision path it took a tenth of the time of the sampled
# estimate (13 arms: ~0.05 ms against 0.5-1.5 ms for 1-3 blocks of 1,024 draws), with a smaller
# error. The overhead benchmark's reference turns it off to time the sampled estimate.
EXACT = True
# Grid spacing: a quarter of the narrowest posterior's standard deviation, over the span where
# any arm has mass (mean +- 8 sd), at most `QUADRATURE_POINTS` points.
_SPACING_IN_SD = 0.25
_SPAN_IN_SD = 8.0
QUADRATURE_POINTS = 4096


def beta_prob_best_quadrature(alpha: FloatArray, beta: FloatArray) -> FloatArray:
    """P(arm i's Beta draw is the largest) = integral of pdf_i(x) * prod_{j != i} CDF_j(x) dx,
    on a grid fine enough for the narrowest posterior; every parameter must be at least 1
    (a bounded density). The CDFs are cumulative sums of the same grid's densities, each
    normalised to 1, so a coarse grid errs symmetrically rather than leaking probability.

    >>> p = beta_prob_best_quadrature(np.array([3.0, 2.0]), np.array([2.0, 3.0]))
    >>> p.round(3).tolist()  # 2,000,000 draws give 0.757 for the first
    [0.757, 0.243]
    """
    return _quadrature(alpha, beta, _grid(alpha.tolist(), beta.tolist()))


def _grid(alphas: list[float], betas: list[float]) -> FloatArray:
    """The cell midpoints of `beta_prob_best_quadrature`'s grid (see its constants).

    Worked out on Python floats, arm by arm, with the operations of the numpy version in the
    same order, so the same floats (IEEE arithmetic and a correctly rounded square root either
    way): only three numbers come out, and for the 2-20 arms of a decision the sixteen numpy
    calls that made them were an eighth of the quadrature's time (121 to 107 us a call)."""
    low, high, narrowest = math.inf, -math.inf, math.inf
    for alpha, beta in zip(alphas, betas, strict=True):
        total = alpha + beta
        mean = alpha / total
        std = math.sqrt(alpha * beta / (total * total * (total + 1.0)))
        spread = _SPAN_IN_SD * std
        low = min(low, mean - spread)
        high = max(high, mean + spread)
        narrowest = min(narrowest, std)
    low, high = max(0.0, low), min(1.0, high)
    points = int(min(QUADRATURE_POINTS, max(64, (high - low) / (_SPACING_IN_SD * narrowest))))
    # Cell midpoints: the density is finite there even where the grid touches 0 or 1.
    return low + _midpoints(points) * ((high - low) / points)


def _quadrature(alpha: FloatArray, beta: FloatArray, x: FloatArray) -> FloatArray:
    """`beta_prob_best_quadrature` on the grid `x` (`_grid`)."""
    # The same operations in the same order as written out plainly (so the same floats, which a
    # test holds to), but with the reductions called on numpy's ufuncs and the grid's arrays
    # reused in place: for the 2-20 arms and 64-point grids of a decision, the wrappers of
    # `ndarray.sum` & co. and the temporaries were a fifth of the time, three times a decision.
    mass = np.multiply.outer(alpha - 1.0, np.log(x))  # the log density, until normalised
    mass += np.multiply.outer(beta - 1.0, np.log1p(-x))
    mass -= _maximum.reduce(mass, axis=1, keepdims=True)
    np.exp(mass, out=mass)
    mass /= _add.reduce(mass, axis=1, keepdims=True)  # each arm's probability per cell
    # CDF at a cell's midpoint: the cells below it, and half of its own.
    cdf = _add.accumulate(mass, axis=1)
    cdf -= 0.5 * mass
    best: FloatArray = _add.reduce(_others_below(cdf) * mass, axis=1)
    return best / float(_add.reduce(best))


@lru_cache(maxsize=128)
def _midpoints(points: int) -> FloatArray:
    """0.5, 1.5, ..., points - 0.5: the cells' midpoints in cell widths (read-only, made once
    per grid size: the same few sizes come back call after call)."""
    midpoints: FloatArray = np.arange(points, dtype=np.float64) + 0.5
    midpoints.flags.writeable = False
    return midpoints


def charged_beta_prob_best(
    alpha: FloatArray,
    beta: FloatArray,
    charges: FloatArray,
    rng: np.random.Generator | Callable[[], np.random.Generator],
    draws: int = MONTE_CARLO_DRAWS,
) -> FloatArray:
    """Probability that each arm's Beta(alpha_i, beta_i) draw less its charge c_i is the
    largest: the propensities of `charged_draw`. Equal charges change nothing
    (`beta_prob_best`); else by quadrature where every parameter is at least 1, or by Monte
    Carlo within `STANDARD_ERROR`.

    On a grid of net values v, arm i's density is its Beta density at v + c_i (zero off its
    support [-c_i, 1 - c_i]), and P(i best) = integral of pdf_i(v) * prod_{j != i} CDF_j(v) dv.

    >>> equal = np.array([5.0, 5.0]), np.array([2.0, 2.0])
    >>> charged = charged_beta_prob_best(*equal, np.array([0.0, 0.1]), np.random.default_rng(0))
    >>> charged.round(3).tolist()  # 400,000 draws give 0.673 for the first
    [0.674, 0.326]
    >>> charged_beta_prob_best(*equal, np.array([0.2, 0.2]), np.random.default_rng(0)).tolist()
    [0.5, 0.5]
    """
    if _minimum.reduce(charges) == _maximum.reduce(charges):  # all alike
        return beta_prob_best(alpha, beta, rng, draws)
    if not (EXACT and min(_minimum.reduce(alpha), _minimum.reduce(beta)) >= 1.0):
        generator = rng if isinstance(rng, np.random.Generator) else rng()
        shape = np.concatenate((alpha, beta))

        def sample(count: int) -> FloatArray:
            gammas = generator.standard_gamma(shape, size=(count, shape.size))
            x = gammas[:, : alpha.size]
            return x / (x + gammas[:, alpha.size :]) - charges

        return sequential_frequencies(sample, alpha.size, draws)
    return _charged_quadrature(alpha, beta, charges)


def _charged_quadrature(alpha: FloatArray, beta: FloatArray, charges: FloatArray) -> FloatArray:
    """`charged_beta_prob_best` by quadrature, every parameter at least 1.

    Arm i's net values end at 1 - c_i, inside the grid wherever the charges differ. The cell
    holding that end is integrated over its inside part only (its midpoint rule), not as a
    whole cell or none: an arm with beta = 1 (no failure yet) has its largest density there
    (alpha at x = 1), and a whole cell or none erred by up to 0.016 in P(best) on 256 points
    (`tests/unit/learning/test_charged_posterior.py` holds the error to a dense grid's). With
    that cell right, the grid follows the uncharged rule (at least 64 points).
    """
    total = alpha + beta
    mean = alpha / total - charges
    std = np.sqrt(alpha * beta / (total * total * (total + 1.0)))
    top = 1.0 - charges  # each arm's highest net value
    lower = _maximum(-charges, mean - _SPAN_IN_SD * std)
    upper = _minimum(top, mean + _SPAN_IN_SD * std)
    # Below the highest lower bound that arm is (all but) never beaten, so nothing is best there;
    # an arm whose upper bound is below it is (all but) never best: left out of the grid.
    low = float(_maximum.reduce(lower))
    live = upper > low
    live_count = np.count_nonzero(live)
    best: FloatArray = np.zeros(alpha.size)
    if live_count == 1:
        best[live] = 1.0
        return best
    a, b, c, s, t = alpha, beta, charges, std, top
    if live_count < alpha.size:
        a, b, c, s, t = a[live], b[live], c[live], s[live], t[live]
    high = float(_maximum.reduce(upper[live]))
    points = int(
        min(QUADRATURE_POINTS, max(64, (high - low) / (_SPACING_IN_SD * _minimum.reduce(s))))
    )
    width = (high - low) / points
    # Each cell's part inside each arm's support, in cell widths: 1 below the arm's end, 0 above
    # it, between in the cell where its values end (low >= -c_i: no arm's values start inside).
    # The density is read at the middle of that part, in the arm's own values (net + c_i); one
    # rule for every cell, where a separate pass over the cut cells cost a sixth more.
    starts = low + (_midpoints(points) - 0.5) * width
    inside = np.subtract.outer(t, starts)
    inside /= width
    np.clip(inside, 0.0, 1.0, out=inside)
    x = inside * (0.5 * width)
    x += starts
    x += c[:, None]
    np.minimum(x, 0.5, out=x, where=inside == 0.0)  # no density there: any value in (0, 1)
    # the Beta function by `math.lgamma`: scipy's import alone took 0.28 s
    log_beta = np.array([lgamma(x) + lgamma(y) - lgamma(x + y) for x, y in zip(a, b, strict=True)])
    mass = _log_density(x, a, b, log_beta)
    np.exp(mass, out=mass)
    mass *= inside
    mass *= width
    # What an arm has below the grid, where its lower values fall, is the rest of its unit mass.
    below = _maximum(1.0 - _add.reduce(mass, axis=1), 0.0)
    cdf = _add.accumulate(mass, axis=1)
    cdf -= 0.5 * mass
    cdf += below[:, None]
    best[live] = _add.reduce(_others_below(cdf) * mass, axis=1)
    return best / float(_add.reduce(best))


def _others_below(cdf: FloatArray) -> FloatArray:
    """Per arm (row) and cell, the probability that every other arm is below there: the
    product of the other rows of `cdf`, overwriting it.

    All the rows' product over the arm's own row, that floored at 1e-300: a CDF at a cell's
    midpoint holds half of the arm's mass in that cell, so where it is 0 so is the mass it is
    weighed with, and nothing is lost. (A product too small for a float, under 1e-308, is as
    good as 0 for every arm.) Two arms are each other's only rival. Why not a sum of logs: two
    fewer passes and no exp or log, in each of the three or four of these a decision computes.
    """
    if cdf.shape[0] == 2:
        return cdf[::-1]
    _maximum(cdf, 1e-300, out=cdf)
    return np.divide(np.multiply.reduce(cdf, axis=0, keepdims=True), cdf, out=cdf)


def _log_density(x: FloatArray, a: FloatArray, b: FloatArray, log_beta: FloatArray) -> FloatArray:
    """log Beta(a_i, b_i) density at x (a row of x per arm)."""
    density = (a[:, None] - 1.0) * np.log(x)
    density += (b[:, None] - 1.0) * np.log1p(-x)
    density -= log_beta[:, None]
    return density


def charged_draw(
    alpha: FloatArray, beta: FloatArray, charges: FloatArray, rng: np.random.Generator
) -> int:
    """Thompson sampling with a charge: the arm whose Beta draw less its charge is largest.

    Why a charge at the draw and not in the reward: the posterior stays what the arms are worth
    (their accuracy), and of two arms equally good the cheaper wins, however noisy the rewards
    that told them apart; a charge in the reward is learned through that noise.

    >>> rng = np.random.default_rng(0)
    >>> picks = [charged_draw(np.full(2, 50.0), np.full(2, 50.0), np.array([0.3, 0.0]), rng)
    ...          for _ in range(200)]
    >>> picks.count(1)
    200
    """
    gammas = rng.standard_gamma(np.concatenate((alpha, beta)))
    x = gammas[: alpha.size]
    return int((x / (x + gammas[alpha.size :]) - charges).argmax())


def beta_prob_best_sampled(
    alpha: FloatArray, beta: FloatArray, rng: np.random.Generator, draws: int = MONTE_CARLO_DRAWS
) -> FloatArray:
    """`beta_prob_best` by Monte Carlo, within `STANDARD_ERROR` (`sequential_frequencies`).

    Draws X ~ Gamma(alpha), Y ~ Gamma(beta): X / (X + Y) ~ Beta(alpha, beta), and X / Y is
    monotone in it, so the argmax of X / Y is the argmax of the Beta draws.

    >>> p = beta_prob_best_sampled(np.array([50.0, 1.0]), np.array([1.0, 50.0]),
    ...                            np.random.default_rng(0))
    >>> p.tolist()
    [1.0, 0.0]
    """
    arms = alpha.size
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
