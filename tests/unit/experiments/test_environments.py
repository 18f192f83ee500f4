"""The benchmark's environments: common random numbers, the instances the issue asks for."""

from collections.abc import Callable

import numpy as np
import pytest

from engine.errors import ConfigError
from experiments.benchmarks.environments import (
    Environment,
    one_hot_contexts,
    reversed_at_half,
    standard_workloads,
    stationary_hard,
    stationary_uniform,
)


def test_the_same_seed_gives_the_same_table_and_another_seed_does_not() -> None:
    workload = standard_workloads()["stationary"]
    first, again, other = workload.build(200, 4), workload.build(200, 4), workload.build(200, 5)
    assert np.array_equal(first.rewards, again.rewards)
    assert np.array_equal(first.step_means, again.step_means)
    assert not np.array_equal(first.step_means, other.step_means)


def test_workloads_do_not_share_tables_on_the_same_seed() -> None:
    workloads = standard_workloads()
    stationary = workloads["stationary"].build(100, 1)
    drift = workloads["drift"].build(100, 1)
    assert not np.array_equal(stationary.step_means[0], drift.step_means[0])


def test_rewards_are_bernoulli_draws_of_the_means() -> None:
    env = stationary_uniform(4, 40_000, np.random.default_rng(0))
    assert set(np.unique(env.rewards)) <= {0.0, 1.0}
    # 40,000 draws per arm: the empirical rate is within 0.01 of the mean (over 4 sd).
    assert np.allclose(env.rewards.mean(axis=0), env.step_means[0], atol=0.01)


def test_hard_instance_has_one_arm_at_half_and_the_rest_at_045() -> None:
    env = stationary_hard(10, 5, np.random.default_rng(3))
    means = env.step_means[0]
    assert sorted(means.tolist()) == [0.45] * 9 + [0.5]
    best_positions = {
        int(np.argmax(stationary_hard(10, 2, np.random.default_rng(s)).step_means[0]))
        for s in range(30)
    }
    assert len(best_positions) > 3  # the best arm moves between seeds


def test_drift_reverses_the_ranks_at_half_time() -> None:
    env = reversed_at_half(10, 101, np.random.default_rng(2))
    before, after = env.step_means[49], env.step_means[50]
    assert np.array_equal(env.step_means[0], before)
    assert np.array_equal(env.step_means[-1], after)
    assert np.array_equal(np.argsort(before), np.argsort(after)[::-1])
    assert sorted(before.tolist()) == sorted(after.tolist())


def test_each_context_has_its_own_best_arm() -> None:
    env = one_hot_contexts(5, 5, 3_000, np.random.default_rng(9))
    assert env.contexts is not None
    assert env.context_dim == 5
    shown = env.contexts.argmax(axis=1)
    assert np.array_equal(env.contexts.sum(axis=1), np.ones(3_000))
    best = {int(c): int(np.argmax(env.step_means[shown == c][0])) for c in range(5)}
    assert len(best) == 5
    assert len(set(best.values())) == 5


def test_regret_of_sums_the_gaps_of_the_chosen_arms() -> None:
    means = np.array([[0.2, 0.9], [0.2, 0.9], [0.7, 0.1]])
    env = Environment(means, np.zeros_like(means))
    assert env.regret_of(np.array([1, 0, 1])) == pytest.approx(0.0 + 0.7 + 0.6)
    assert env.regret_of(np.array([1, 1, 0])) == 0.0


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda rng: stationary_uniform(1, 10, rng), "at least 2 arms"),
        (lambda rng: stationary_hard(10, 1, rng), "at least 2 steps"),
        (lambda rng: one_hot_contexts(6, 5, 10, rng), "contexts <= arms"),
    ],
)
def test_bad_sizes_are_refused_with_the_reason(
    build: Callable[[np.random.Generator], Environment], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        build(np.random.default_rng(0))


def test_regret_of_refuses_a_choice_sequence_of_the_wrong_length() -> None:
    env = stationary_uniform(3, 10, np.random.default_rng(0))
    with pytest.raises(ConfigError, match="one chosen arm per step"):
        env.regret_of(np.zeros(9, dtype=int))


def test_mismatched_tables_are_refused() -> None:
    with pytest.raises(ConfigError, match="same"):
        Environment(np.zeros((3, 2)), np.zeros((3, 3)))
    with pytest.raises(ConfigError, match="one row per step"):
        Environment(np.zeros((3, 2)), np.zeros((3, 2)), np.zeros((2, 5)))
