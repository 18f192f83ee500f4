"""Behaviour specific to single policies: auto's choice, change detection, forgetting, factors."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from learning import load_policy, make_policy
from learning.change_point import bernoulli_glr, glr_threshold
from learning.errors import InvalidParameterError
from learning.square_root import add_outer_product


def test_auto_chooses_by_problem_structure() -> None:
    assert make_policy("auto", arms=["a", "b"]).name == "glr_thompson"
    assert make_policy("auto", arms=["a", "b"], context_dim=4).name == "contextual_bayes_ucb"
    assert make_policy("auto", arms=["a", "b"], context_dim=4, discrete=0).name == "lints"
    with pytest.raises(InvalidParameterError, match="discrete"):
        make_policy("auto", arms=["a", "b"], discrete=0)
    with pytest.raises(InvalidParameterError, match="discrete"):
        make_policy("auto", arms=["a", "b"], context_dim=4, discrete=2)


def _play_switch(policy_name: str, seed: int, steps: int = 2000) -> tuple[object, float]:
    """Two arms at 0.8 / 0.3 that swap halfway; return the policy and its second-half regret."""
    policy = make_policy(policy_name, arms=["a", "b"], seed=seed)
    rng = np.random.default_rng(seed)
    regret = 0.0
    for step in range(steps):
        means = {"a": 0.8, "b": 0.3} if step < steps // 2 else {"a": 0.3, "b": 0.8}
        arm = policy.select()
        policy.update(arm, float(rng.random() < means[arm]))
        if step >= steps // 2:
            regret += 0.8 - means[arm]
    return policy, regret


def test_glr_thompson_restarts_after_a_change_and_recovers_faster_than_thompson() -> None:
    glr, glr_regret = _play_switch("glr_thompson", seed=1)
    _, plain_regret = _play_switch("thompson", seed=1)
    assert glr.restarts >= 1  # type: ignore[attr-defined]
    assert glr_regret < 0.5 * plain_regret


def test_glr_thompson_does_not_restart_in_a_stationary_world() -> None:
    policy = make_policy("glr_thompson", arms=["a", "b", "c"], seed=5)
    rng = np.random.default_rng(5)
    means = {"a": 0.6, "b": 0.5, "c": 0.2}
    for _ in range(3000):
        arm = policy.select()
        policy.update(arm, float(rng.random() < means[arm]))
    assert policy.restarts == 0  # type: ignore[attr-defined]
    assert policy.prob_best()["a"] > 0.9


@settings(deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=2, max_size=60))
def test_glr_statistic_is_non_negative_and_zero_for_a_constant_stream(rewards: list[float]) -> None:
    weights = np.cumsum(np.ones(len(rewards)))
    assert bernoulli_glr(weights, np.cumsum(rewards)) >= -1e-9
    constant = np.cumsum(np.full(len(rewards), rewards[0]))
    assert bernoulli_glr(weights, constant) < 1e-6


@settings(deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=2, max_size=300), st.integers(1, 50))
def test_subsampled_glr_never_exceeds_the_full_scan(rewards: list[float], splits: int) -> None:
    weights, sums = np.cumsum(np.ones(len(rewards))), np.cumsum(rewards)
    full = bernoulli_glr(weights, sums)
    assert bernoulli_glr(weights, sums, max_splits=splits) <= full + 1e-12
    assert bernoulli_glr(weights, sums, max_splits=len(rewards)) == full


def test_subsampled_glr_still_sees_the_newest_split() -> None:
    rewards = np.r_[np.zeros(999), np.ones(1)]
    weights, sums = np.cumsum(np.ones(1000)), np.cumsum(rewards)
    assert bernoulli_glr(weights, sums, max_splits=10) == bernoulli_glr(weights, sums)


def test_glr_threshold_grows_with_observations_and_confidence() -> None:
    assert glr_threshold(1000, 0.01) > glr_threshold(100, 0.01)
    assert glr_threshold(100, 0.001) > glr_threshold(100, 0.01)


@settings(deadline=None)
@given(
    st.lists(st.lists(st.floats(-3.0, 3.0), min_size=3, max_size=3), min_size=1, max_size=30),
    st.floats(0.1, 10.0),
)
def test_square_root_factor_tracks_the_inverse(vectors: list[list[float]], ridge: float) -> None:
    factor = np.eye(3) / np.sqrt(ridge)
    matrix = ridge * np.eye(3)
    for vector in vectors:
        add_outer_product(factor, np.array(vector))
        matrix += np.outer(vector, vector)
    assert np.allclose(factor.T @ factor, np.linalg.inv(matrix), rtol=1e-7, atol=1e-10)


def test_linear_policies_estimate_the_ridge_solution() -> None:
    rng = np.random.default_rng(0)
    policy = make_policy("linucb", arms=["a"], context_dim=3, ridge=2.0)
    contexts, rewards = rng.random((50, 3)), rng.random(50)
    for x, r in zip(contexts, rewards, strict=True):
        policy.update("a", float(r), context=x)
    expected = np.linalg.solve(2.0 * np.eye(3) + contexts.T @ contexts, contexts.T @ rewards)
    assert np.allclose(policy.to_dict()["stats"]["theta"][0], expected)


def test_sliding_window_forgets_observations_older_than_the_window() -> None:
    policy = make_policy("sliding_window_ucb", arms=["a", "b"], window=10)
    for _ in range(10):
        policy.update("a", 1.0)
    for _ in range(10):
        policy.update("b", 0.0)
    stats = policy.to_dict()["stats"]
    assert stats["pulls"] == [0.0, 10.0]
    assert policy.select() == "a"  # "a" fell out of the window: it is untried again


def test_discounted_thompson_forgets_geometrically() -> None:
    policy = make_policy("discounted_thompson", arms=["a", "b"], discount=0.5)
    policy.update("a", 1.0)
    for _ in range(3):
        policy.update("b", 0.0)
    alpha = policy.to_dict()["stats"]["alpha"]
    assert alpha[0] == pytest.approx(1.0 + 0.5**3)


def test_contextual_thompson_keys_contexts_by_value_and_bounds_them() -> None:
    policy = make_policy("contextual_thompson", arms=["a", "b"], context_dim=2, max_contexts=2)
    policy.update("a", 1.0, context=np.array([1.0, 0.0]))
    policy.update("a", 1.0, context=np.array([1.0, -0.0]))  # the same context as the first
    policy.update("a", 1.0, context=np.array([0.0, 1.0]))
    before = json.dumps(policy.to_dict())
    with pytest.raises(InvalidParameterError, match="max_contexts"):
        policy.update("a", 1.0, context=np.array([0.5, 0.5]))
    assert json.dumps(policy.to_dict()) == before
    assert len(load_policy(json.loads(before)).to_dict()["stats"]["contexts"]) == 2


def test_glr_history_is_bounded_and_still_detects_changes() -> None:
    policy = make_policy("glr_thompson", arms=["a", "b"], seed=3, max_history=128)
    rng = np.random.default_rng(3)
    for step in range(600):
        means = {"a": 0.9, "b": 0.2} if step < 300 else {"a": 0.1, "b": 0.9}
        arm = policy.select()
        policy.update(arm, float(rng.random() < means[arm]))
        if step == 299:
            assert policy.restarts == 0  # type: ignore[attr-defined]
            state = policy.to_dict()["stats"]
            assert max(len(history) for history in state["cumulative_weights"]) <= 128
            assert all(np.all(np.diff(h) > 0) for h in state["cumulative_weights"])
    assert policy.restarts >= 1  # type: ignore[attr-defined]
    copy = load_policy(json.loads(json.dumps(policy.to_dict())))
    assert [copy.select() for _ in range(20)] == [policy.select() for _ in range(20)]


def test_forced_exploration_mixes_uniform_mass_into_the_propensity() -> None:
    policy = make_policy("glr_thompson", arms=["a", "b", "c", "d"], forced_exploration=0.2)
    for _ in range(200):
        policy.update("a", 1.0)
    probabilities = policy.probabilities()
    assert min(probabilities.values()) >= 0.05 - 1e-12
    assert probabilities["a"] > 0.8


def test_epsilon_decays_as_one_over_t() -> None:
    policy = make_policy("epsilon_greedy", arms=["a", "b"], epsilon=0.5, decay=1.0)
    policy.update("a", 1.0)
    policy.update("b", 0.0)
    assert policy.probabilities()["b"] == pytest.approx(0.5 / 3 / 2)
    for _ in range(98):
        policy.update("a", 1.0)
    assert policy.probabilities()["b"] == pytest.approx(0.5 / 101 / 2)
