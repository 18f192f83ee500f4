"""The experiments' extra workloads: Gaussian (clipped, exact means) and gradual drift."""

import numpy as np
import pytest

from engine.errors import ConfigError
from experiments.environments import (
    clipped_normal_mean,
    experiment_workloads,
    gradual_drift,
    stationary_gaussian,
)


def test_the_clipped_normal_mean_matches_monte_carlo() -> None:
    rng = np.random.default_rng(0)
    means = np.array([0.05, 0.5, 0.9])
    draws = np.clip(means + 0.3 * rng.standard_normal((400_000, 3)), 0.0, 1.0)
    assert np.allclose(clipped_normal_mean(means, 0.3), draws.mean(axis=0), atol=2e-3)


def test_gaussian_rewards_are_in_range_and_centred_on_the_step_means() -> None:
    env = stationary_gaussian(4, horizon=50_000, rng=np.random.default_rng(1))
    assert env.rewards.min() >= 0.0
    assert env.rewards.max() <= 1.0
    assert np.allclose(env.rewards.mean(axis=0), env.step_means[0], atol=5e-3)


def test_gradual_drift_ends_with_the_ranks_reversed() -> None:
    env = gradual_drift(5, horizon=1_000, rng=np.random.default_rng(2))
    start, end = env.step_means[0], env.step_means[-1]
    assert np.argmax(start) == np.argmin(end)
    assert np.allclose(np.sort(start), np.sort(end))
    assert np.all(np.abs(np.diff(env.step_means, axis=0)) < 0.01)  # gradual, no jump


def test_the_same_seed_draws_the_same_environment() -> None:
    workload = experiment_workloads()["gaussian"]
    first, second = workload.build(100, seed=3), workload.build(100, seed=3)
    assert np.array_equal(first.rewards, second.rewards)
    assert not np.array_equal(first.rewards, workload.build(100, seed=4).rewards)


def test_every_workload_kind_of_the_issue_is_there() -> None:
    workloads = experiment_workloads()
    assert {"stationary", "gaussian", "drift", "drift-gradual", "contextual"} <= set(workloads)
    assert workloads["contextual"].context_dim == 5


def test_bad_sizes_are_rejected() -> None:
    with pytest.raises(ConfigError, match="2 arms"):
        gradual_drift(1, horizon=10, rng=np.random.default_rng(0))
    with pytest.raises(ConfigError, match="sigma"):
        stationary_gaussian(3, horizon=10, rng=np.random.default_rng(0), sigma=0.0)
