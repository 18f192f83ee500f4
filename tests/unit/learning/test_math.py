"""Properties of the bandit math, checked with Hypothesis."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as scipy_stats

from learning import make_policy
from learning.errors import PolicyError
from learning.kl import kl_bernoulli, kl_ucb_index
from learning.posterior import beta_prob_best, beta_prob_best_quadrature, beta_std

probability = st.floats(0.0, 1.0)
pulls = st.floats(1.0, 1e6)
budget = st.floats(0.01, 50.0)
rewards = st.lists(st.tuples(st.floats(0.0, 1.0), st.floats(0.01, 1.0)), max_size=40)


@settings(deadline=None)  # no timings in unit tests: this machine is shared
@given(probability, probability)
def test_kl_is_non_negative_and_zero_only_on_the_diagonal(p: float, q: float) -> None:
    value = float(kl_bernoulli(p, q))
    assert value >= 0.0
    if abs(p - q) > 1e-6:
        assert value > 0.0
    assert float(kl_bernoulli(p, p)) < 1e-12


@settings(deadline=None)  # no timings in unit tests: this machine is shared
@given(probability, pulls, budget)
def test_kl_ucb_index_lies_between_the_mean_and_one_at_the_budget(
    mean: float, n: float, level: float
) -> None:
    index = float(kl_ucb_index([mean], [n], level)[0])
    assert mean - 1e-12 <= index <= 1.0
    assert n * float(kl_bernoulli(mean, index)) <= level * (1 + 1e-9) + 1e-9
    if index < 1.0 - 1e-6:  # an interior index sits on the budget's boundary
        assert math.isclose(n * float(kl_bernoulli(mean, index)), level, rel_tol=1e-3)


@settings(deadline=None)  # no timings in unit tests: this machine is shared
@given(probability, pulls, budget)
def test_kl_ucb_index_shrinks_with_pulls_and_grows_with_budget(
    mean: float, n: float, level: float
) -> None:
    index = kl_ucb_index([mean, mean, mean], [n, 2 * n, n], np.array([level, level, 2 * level]))  # type: ignore[arg-type]
    assert index[1] <= index[0] + 1e-12
    assert index[2] >= index[0] - 1e-12


def _scalar_kl_ucb_index(mean: float, n: float, level: float) -> float:
    """The definition, one arm at a time: 100 bisection steps on the scalar divergence."""
    low, high = mean, 1.0
    for _ in range(100):
        middle = 0.5 * (low + high)
        if n * float(kl_bernoulli(mean, middle)) <= level:
            low = middle
        else:
            high = middle
    return low


@settings(deadline=None)  # no timings in unit tests: this machine is shared
@given(st.lists(st.tuples(probability, pulls), min_size=1, max_size=12), budget)
def test_kl_ucb_index_of_all_arms_at_once_equals_the_scalar_definition(
    arms: list[tuple[float, float]], level: float
) -> None:
    means, counts = (np.array(column) for column in zip(*arms, strict=True))
    index = kl_ucb_index(means, counts, level)
    expected = [_scalar_kl_ucb_index(mean, n, level) for mean, n in arms]
    # Both sides round kl near q = mean by ~1e-16, which moves the root by well under 1e-10.
    np.testing.assert_allclose(index, expected, rtol=0.0, atol=1e-10)


def test_kl_ucb_index_edge_cases_follow_the_definition() -> None:
    # no pulls: every q fits; mean 1: the index is 1; a zero budget leaves the mean.
    index = kl_ucb_index([0.3, 1.0, 0.4], [0.0, 5.0, 5.0], 0.0)
    assert index.tolist() == [1.0, 1.0, 0.4]
    # mean 0: kl(0, q) = -ln(1 - q), so the index is 1 - exp(-budget / n).
    assert math.isclose(float(kl_ucb_index([0.0], [2.0], 1.0)[0]), -math.expm1(-0.5), rel_tol=1e-9)


@settings(max_examples=50, deadline=None)
@given(rewards)
def test_thompson_posterior_is_prior_plus_weighted_successes_and_failures(
    observations: list[tuple[float, float]],
) -> None:
    policy = make_policy("thompson", arms=["a"], prior_alpha=2.0, prior_beta=3.0)
    for reward, weight in observations:
        policy.update("a", reward, weight=weight)
    stats = policy.to_dict()["stats"]
    assert math.isclose(stats["alpha"][0], 2.0 + sum(r * w for r, w in observations), abs_tol=1e-9)
    assert math.isclose(
        stats["beta"][0], 3.0 + sum((1 - r) * w for r, w in observations), abs_tol=1e-9
    )


@settings(deadline=None)  # no timings in unit tests: this machine is shared
@given(st.floats(0.01, 1e4), st.floats(0.01, 1e4))
def test_beta_std_matches_scipy(alpha: float, beta: float) -> None:
    assert math.isclose(beta_std(alpha, beta), scipy_stats.beta(alpha, beta).std(), rel_tol=1e-6)


@settings(max_examples=50, deadline=None)
@given(rewards)
def test_counting_policies_keep_weighted_pulls_and_sums(
    observations: list[tuple[float, float]],
) -> None:
    for name in ("ucb1", "klucb", "epsilon_greedy"):
        policy = make_policy(name, arms=["a", "b"])
        for reward, weight in observations:
            policy.update("b", reward, weight=weight)
        stats = policy.to_dict()["stats"]
        assert stats["pulls"][0] == 0.0
        assert math.isclose(stats["pulls"][1], sum(w for _, w in observations), abs_tol=1e-9)
        assert math.isclose(stats["sums"][1], sum(r * w for r, w in observations), abs_tol=1e-9)


@settings(max_examples=25, deadline=None)
@given(
    arms=st.integers(2, 13),
    pulls_per_arm=st.sampled_from([0, 3, 30, 300, 3000]),
    seed=st.integers(0, 2**32 - 1),
)
def test_quadrature_p_best_agrees_with_many_draws(arms: int, pulls_per_arm: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    successes = rng.binomial(pulls_per_arm, rng.uniform(0.1, 0.9, size=arms)).astype(float)
    alpha, beta = 1.0 + successes, 1.0 + pulls_per_arm - successes
    alpha[0], beta[0] = 1.0, 1.0  # one arm still at its prior: wide beside narrow ones
    exact = beta_prob_best_quadrature(alpha, beta)
    draws = 200_000
    sampled = np.bincount(rng.beta(alpha, beta, size=(draws, arms)).argmax(axis=1), minlength=arms)
    # 5 standard errors of the sampled share (at most 0.0011 at p = 0.5), plus the grid's 0.002
    assert np.abs(exact - sampled / draws).max() <= 5 * 0.5 / math.sqrt(draws) + 0.002
    assert math.isclose(float(exact.sum()), 1.0)


def test_p_best_falls_back_to_draws_below_a_bounded_density() -> None:
    alpha, beta = np.array([0.5, 3.0]), np.array([0.5, 1.0])  # a Jeffreys prior: unbounded at 0, 1
    first = beta_prob_best(alpha, beta, np.random.default_rng(1))
    assert first.tolist() == beta_prob_best(alpha, beta, np.random.default_rng(1)).tolist()
    assert abs(float(first[1]) - 0.68) < 0.05


def _plain_quadrature(alpha: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """`beta_prob_best_quadrature` written plainly, without its in-place rewrite."""
    mean = alpha / (alpha + beta)
    std = np.sqrt(alpha * beta / ((alpha + beta) ** 2 * (alpha + beta + 1.0)))
    low = max(0.0, float((mean - 8.0 * std).min()))
    high = min(1.0, float((mean + 8.0 * std).max()))
    points = int(min(4096, max(64, (high - low) / (0.25 * std.min()))))
    x = low + (np.arange(points) + 0.5) * ((high - low) / points)
    log_density = (alpha[:, None] - 1.0) * np.log(x) + (beta[:, None] - 1.0) * np.log1p(-x)
    density = np.exp(log_density - log_density.max(axis=1, keepdims=True))
    mass = density / density.sum(axis=1, keepdims=True)
    cdf = np.cumsum(mass, axis=1) - 0.5 * mass
    if len(alpha) == 2:  # each arm's only rival is the other
        others = cdf[::-1]
    else:  # the product of the other arms' CDFs
        floored = np.maximum(cdf, 1e-300)
        others = floored.prod(axis=0, keepdims=True) / floored
    best: np.ndarray = (mass * others).sum(axis=1)
    return best / float(best.sum())


@settings(max_examples=200, deadline=None)
@given(
    parameters=st.lists(
        st.tuples(st.floats(1.0, 5e3), st.floats(1.0, 5e3)), min_size=2, max_size=24
    )
)
def test_quadrature_gives_the_same_floats_as_written_plainly(
    parameters: list[tuple[float, float]],
) -> None:
    # Why bit for bit: the propensities logged with every decision come from here, and a
    # decision made with the same seed and statistics must log the same numbers as before.
    alpha = np.array([a for a, _ in parameters])
    beta = np.array([b for _, b in parameters])
    assert np.array_equal(beta_prob_best_quadrature(alpha, beta), _plain_quadrature(alpha, beta))


@pytest.mark.parametrize(
    ("alpha", "beta"),
    [([2.0, math.nan], [3.0, 3.0]), ([2.0, 2.0], [3.0, math.nan]), ([2.0, math.inf], [3.0, 3.0])],
)
def test_p_best_refuses_parameters_that_are_not_finite(
    alpha: list[float], beta: list[float]
) -> None:
    with pytest.raises(PolicyError, match="must be finite"):
        beta_prob_best(np.array(alpha), np.array(beta), np.random.default_rng(0))
