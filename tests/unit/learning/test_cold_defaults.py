"""The default cold width lets the pulls decide: why it is 0.25 (`learning.base.COLD_PARAMS`)."""

import itertools

import pytest

from learning import make_policy


@pytest.mark.parametrize("rewards", list(itertools.product([0.0, 0.5, 1.0], repeat=3)))
def test_three_pulls_warm_a_thompson_arm_whatever_its_rewards(rewards) -> None:
    policy = make_policy("thompson", ["a", "b"], seed=0)
    for reward in rewards[:2]:
        policy.update("a", reward)
    assert policy.is_cold("a")  # fewer than cold_pulls
    policy.update("a", rewards[2])
    assert not policy.is_cold("a")


def test_a_width_of_0_15_would_keep_a_mixed_arm_cold_after_three_pulls() -> None:
    policy = make_policy("thompson", ["a", "b"], seed=0, cold_width=0.15)
    for reward in (1.0, 0.0, 1.0):
        policy.update("a", reward)
    assert policy.is_cold("a")
