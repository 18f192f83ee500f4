"""The harness computes regret correctly: an oracle pays nothing, uniform random its closed form."""

import numpy as np
import pytest
from scipy import stats

from engine.errors import ConfigError
from experiments.benchmarks.environments import Environment, standard_workloads
from experiments.benchmarks.harness import arm_names, play, summarise

FloatArray = np.ndarray


class Oracle:
    """Knows the environment's means and always plays the best arm of the current step."""

    def __init__(self, environment: Environment) -> None:
        self._means = environment.step_means
        self._arms = arm_names(environment.n_arms)
        self._step = 0

    def select(self, context: FloatArray | None = None) -> str:
        return self._arms[int(np.argmax(self._means[self._step]))]

    def update(self, arm: str, reward: float, context: FloatArray | None = None) -> None:
        self._step += 1


class UniformRandom:
    """Plays an arm uniformly at random, and records what it was shown."""

    def __init__(self, n_arms: int, seed: int) -> None:
        self._arms = arm_names(n_arms)
        self._rng = np.random.default_rng(seed)
        self.rewards: list[float] = []
        self.contexts_seen = 0

    def select(self, context: FloatArray | None = None) -> str:
        self.contexts_seen += context is not None
        return self._arms[int(self._rng.integers(len(self._arms)))]

    def update(self, arm: str, reward: float, context: FloatArray | None = None) -> None:
        self.rewards.append(reward)


class Stubborn:
    """Always plays one arm: its regret is the sum of that arm's gaps, known exactly."""

    def __init__(self, arm: str) -> None:
        self._arm = arm

    def select(self, context: FloatArray | None = None) -> str:
        return self._arm

    def update(self, arm: str, reward: float, context: FloatArray | None = None) -> None:
        pass


@pytest.mark.parametrize("workload", sorted(standard_workloads()))
def test_an_oracle_has_zero_regret(workload: str) -> None:
    environment = standard_workloads()[workload].build(2_000, seed=3)
    assert environment.regret_of(play(Oracle(environment), environment)) == 0.0


@pytest.mark.parametrize("workload", sorted(standard_workloads()))
def test_uniform_random_regret_matches_its_closed_form(workload: str) -> None:
    """E[regret] = sum_t (max_k mu_tk - mean_k mu_tk); the steps' gaps are independent draws."""
    environment = standard_workloads()[workload].build(4_000, seed=11)
    means = environment.step_means
    gaps = means.max(axis=1, keepdims=True) - means
    expected = float(gaps.mean(axis=1).sum())
    sd = float(np.sqrt(gaps.var(axis=1).sum()))
    regret = environment.regret_of(play(UniformRandom(environment.n_arms, 5), environment))
    assert expected > 8 * sd  # a harness that lost the regret could not pass the check below
    assert abs(regret - expected) < 4 * sd


def test_a_fixed_arm_pays_exactly_its_gaps() -> None:
    environment = standard_workloads()["drift"].build(1_000, seed=2)
    means = environment.step_means
    expected = float((means.max(axis=1) - means[:, 3]).sum())
    chosen = play(Stubborn("arm3"), environment)
    assert np.all(chosen == 3)
    assert environment.regret_of(chosen) == pytest.approx(expected)


def test_the_policy_gets_the_tables_rewards_and_contexts() -> None:
    environment = standard_workloads()["contextual"].build(500, seed=1)
    policy = UniformRandom(environment.n_arms, 0)
    chosen = play(policy, environment)
    assert policy.rewards == environment.rewards[np.arange(500), chosen].tolist()
    assert policy.contexts_seen == 500


def test_a_choice_outside_the_arms_is_refused_by_name() -> None:
    environment = standard_workloads()["hard"].build(10, seed=0)
    with pytest.raises(ConfigError, match="'arm99'"):
        play(Stubborn("arm99"), environment)


def test_summarise_gives_the_t_interval() -> None:
    values = [3.0, 5.0, 4.0, 8.0]
    s = summarise(values)
    expected_half = stats.t.ppf(0.975, 3) * np.std(values, ddof=1) / 2.0
    assert s.mean == 5.0
    assert s.half_width == pytest.approx(expected_half)
    assert (s.low, s.high) == pytest.approx((5.0 - expected_half, 5.0 + expected_half))


def test_summarise_refuses_one_seed_and_non_finite_values() -> None:
    with pytest.raises(ConfigError, match="at least 2 seeds"):
        summarise([1.0])
    with pytest.raises(ConfigError, match="finite"):
        summarise([1.0, float("nan")])
