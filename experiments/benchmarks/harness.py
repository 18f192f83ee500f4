"""Run a policy through an environment and summarise regret over seeds.

The harness is deliberately small and policy-agnostic: it sees only the `BanditPolicy` contract,
so that ThinkPath's policies, the peers and the test doubles are all driven by the same loop.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from engine.errors import ConfigError
from experiments.benchmarks.environments import Environment
from experiments.benchmarks.peers import BanditPolicy


def arm_names(n_arms: int) -> list[str]:
    """The arms of a K-armed workload: "arm0" ... "arm{K-1}"; index i is column i of the table."""
    return [f"arm{i}" for i in range(n_arms)]


def play(policy: BanditPolicy, environment: Environment) -> NDArray[np.int_]:
    """Drive `policy` through every step of `environment`; return the chosen arm index per step.

    Each step is one `select` and one `update` with the reward that the environment's table holds
    for the chosen arm at that step, so every policy on the same environment meets the same luck.
    """
    arms = arm_names(environment.n_arms)
    index = {arm: i for i, arm in enumerate(arms)}
    rewards = environment.rewards
    contexts = environment.contexts
    chosen = np.empty(environment.horizon, dtype=np.int_)
    for step in range(environment.horizon):
        if contexts is None:
            arm = policy.select()
        else:
            context = contexts[step]
            arm = policy.select(context=context)
        if arm not in index:
            raise ConfigError(f"the policy chose {arm!r}, which is not one of the arms {arms}")
        column = index[arm]
        reward = float(rewards[step, column])
        if contexts is None:
            policy.update(arm, reward)
        else:
            policy.update(arm, reward, context=context)
        chosen[step] = column
    return chosen


@dataclass(frozen=True)
class Summary:
    """Mean and 95% confidence half-width (Student t) of one contender's regret over seeds."""

    mean: float
    half_width: float
    n_seeds: int

    @property
    def low(self) -> float:
        """The interval's lower end."""
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        """The interval's upper end."""
        return self.mean + self.half_width


def summarise(values: Sequence[float]) -> Summary:
    """Mean ± t(0.975, n-1) · s / sqrt(n), the usual 95% interval for a mean over n seeds.

    >>> s = summarise([1.0, 2.0, 3.0])
    >>> (s.mean, round(s.half_width, 3))
    (2.0, 2.484)
    """
    data = np.asarray(values, dtype=np.float64)
    if data.size < 2:
        raise ConfigError(f"a confidence interval needs at least 2 seeds, got {data.size}")
    if not np.all(np.isfinite(data)):
        raise ConfigError("regret values must be finite")
    sd = float(data.std(ddof=1))
    half_width = float(stats.t.ppf(0.975, data.size - 1) * sd / np.sqrt(data.size))
    return Summary(float(data.mean()), half_width, int(data.size))
