"""The pooling simulator: its regret accounting and the comparison it exists for."""

import numpy as np
import pytest

from experiments.pooling import family_means, main, regrets, run_stream


class AlwaysB:
    """A stand-in policy that always plays "b" and records what it was told."""

    arms = ("a", "b")
    is_contextual = False

    def __init__(self) -> None:
        self.rewards: list[float] = []

    def select(self, context: object = None) -> str:
        return "b"

    def update(self, arm: str, reward: float, context: object = None) -> None:
        self.rewards.append(reward)


def test_regret_is_the_gap_to_the_family_best_and_rewards_follow_the_draws() -> None:
    means = np.array([[0.9, 0.1], [0.2, 0.6]])
    order = np.array([0, 1, 0, 1])
    uniforms = np.array([[0.0, 0.05], [0.0, 0.7], [0.0, 0.5], [0.0, 0.1]])
    policy = AlwaysB()
    regret = run_stream(policy, means, order, uniforms)  # type: ignore[arg-type]
    assert regret == pytest.approx(2 * (0.9 - 0.1) + 2 * 0.0)
    assert policy.rewards == [1.0, 0.0, 0.0, 1.0]
    assert family_means("unrelated", 3, 4, np.random.default_rng(0)).shape == (3, 4)


def test_the_pooled_prior_cuts_regret_where_families_are_alike() -> None:
    found = regrets("alike", seeds=5, families=10, queries=10, arms=6, strengths=(4.0,))
    assert found["pooled_thompson m=4"].mean() < found["contextual_thompson"].mean()
    assert found["pooled_bayes_ucb m=4"].mean() < found["contextual_bayes_ucb"].mean()


def test_the_command_refuses_degenerate_sizes() -> None:
    with pytest.raises(SystemExit):
        main(["--seeds", "1"])
