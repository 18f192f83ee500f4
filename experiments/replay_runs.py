"""Replay bandit policies over a cached outcome matrix, thousands of runs in seconds.

Each run draws a stream of tasks uniformly (with replacement) from the matrix's suite, shows the
policy each task's context, and pays the chosen strategy's recorded reward for that task. Runs
share their task streams across policies (common random numbers), so two policies' curves differ
by what they chose, not by which tasks they met.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from engine.errors import ConfigError
from experiments.replay import OutcomeMatrix

__all__ = ["ReplayPolicy", "ReplayResult", "family_contexts", "replay"]


class ReplayPolicy(Protocol):
    """What replay asks of a policy: the learning core's contract, which baselines share."""

    @property
    def arms(self) -> list[str]: ...

    @property
    def is_contextual(self) -> bool: ...

    def select(self, context: np.ndarray | None = None) -> str: ...

    def update(
        self, arm: str, reward: float, context: np.ndarray | None = None, weight: float = 1.0
    ) -> None: ...


PolicyFactory = Callable[[int], ReplayPolicy]
"""Builds a fresh policy over the matrix's strategies from a run's seed."""


@dataclass(frozen=True)
class ReplayResult:
    """Rewards of one policy over every replay run."""

    label: str
    rewards: np.ndarray  # (runs, steps)

    @property
    def mean_reward(self) -> float:
        """Average reward per task over the whole stream (learning included)."""
        return float(self.rewards.mean())

    @property
    def settled_reward(self) -> float:
        """Average reward per task over the stream's last half: where the policy settled."""
        return float(self.rewards[:, self.rewards.shape[1] // 2 :].mean())


def family_contexts(families: Sequence[str]) -> np.ndarray:
    """One-hot rows of each task's family label, in order of first appearance."""
    names = list(dict.fromkeys(families))
    return np.eye(len(names))[[names.index(family) for family in families]]


def replay(
    matrix: OutcomeMatrix,
    make: PolicyFactory,
    label: str,
    *,
    runs: int,
    steps: int,
    seed: int = 0,
    contexts: np.ndarray | None = None,
    progress: Callable[[int], None] | None = None,
) -> ReplayResult:
    """Replay `runs` fresh policies for `steps` tasks each; `contexts[i]` is task i's context."""
    if runs < 1 or steps < 1:
        raise ConfigError(f"runs and steps must be positive, got runs={runs}, steps={steps}")
    task_count = len(matrix.tasks)
    if contexts is not None and contexts.shape[0] != task_count:
        raise ConfigError(f"contexts need one row per task ({task_count}), got {contexts.shape}")
    index_of = {strategy: k for k, strategy in enumerate(matrix.strategies)}
    rewards = np.empty((runs, steps))
    for run in range(runs):
        policy = make(seed * 100_003 + run)
        if sorted(policy.arms) != sorted(matrix.strategies):
            raise ConfigError(f"{label}'s arms {policy.arms} are not the matrix's strategies")
        if policy.is_contextual and contexts is None:
            raise ConfigError(f"{label} is contextual: replay it with task contexts")
        stream = np.random.default_rng([seed, run]).integers(task_count, size=steps)
        for step, task in enumerate(stream):
            context = contexts[task] if policy.is_contextual and contexts is not None else None
            arm = policy.select(context=context)
            reward = float(matrix.rewards[index_of[arm], task])
            policy.update(arm, reward, context=context)
            rewards[run, step] = reward
        if progress is not None:
            progress(1)  # one more run finished
    return ReplayResult(label=label, rewards=rewards)
