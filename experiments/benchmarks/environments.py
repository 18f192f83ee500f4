"""Bernoulli bandit environments whose every outcome is drawn up front (common random numbers).

An `Environment` holds, for each step t, the mean reward of every arm (`step_means`, shape
(T, K)), the reward each arm *would* pay at that step (`rewards`, same shape, 0 or 1) and, for a
contextual workload, the context shown at that step (`contexts`, shape (T, d)). Because the whole
table is drawn before any policy runs, every policy run on the same seed faces exactly the same
outcomes: the differences between policies are then differences of policy, not of luck, and the
confidence intervals of a comparison shrink accordingly.

Pseudo-regret is computed from the means, not from the drawn rewards:
``regret = sum_t (max_k step_means[t, k] - step_means[t, chosen_t])``.
"""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from engine.errors import ConfigError

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class Environment:
    """One seed's draw of a workload: means, would-be rewards and contexts for every step."""

    step_means: FloatArray
    rewards: FloatArray
    contexts: FloatArray | None = None

    def __post_init__(self) -> None:
        if self.step_means.ndim != 2 or self.step_means.shape != self.rewards.shape:
            raise ConfigError(
                f"step_means {self.step_means.shape} and rewards {self.rewards.shape} "
                "must be two arrays of the same (steps, arms) shape"
            )
        if self.contexts is not None and (
            self.contexts.ndim != 2 or self.contexts.shape[0] != self.step_means.shape[0]
        ):
            raise ConfigError(
                f"contexts {self.contexts.shape} must have one row per step "
                f"({self.step_means.shape[0]})"
            )

    @property
    def horizon(self) -> int:
        """The number of steps, T."""
        return int(self.step_means.shape[0])

    @property
    def n_arms(self) -> int:
        """The number of arms, K."""
        return int(self.step_means.shape[1])

    @property
    def context_dim(self) -> int | None:
        """The context's length, or None for a context-free workload."""
        return None if self.contexts is None else int(self.contexts.shape[1])

    def regret_of(self, chosen: NDArray[np.int_]) -> float:
        """Pseudo-regret of a sequence of chosen arm indices, one per step."""
        if chosen.shape != (self.horizon,):
            raise ConfigError(f"need one chosen arm per step ({self.horizon}), got {chosen.shape}")
        steps = np.arange(self.horizon)
        gaps = self.step_means.max(axis=1) - self.step_means[steps, chosen]
        return float(gaps.sum())


def _check_size(n_arms: int, horizon: int) -> None:
    if n_arms < 2:
        raise ConfigError(f"a bandit needs at least 2 arms, got {n_arms}")
    if horizon < 2:
        raise ConfigError(f"the horizon must be at least 2 steps, got {horizon}")


def _draw_rewards(step_means: FloatArray, rng: np.random.Generator) -> FloatArray:
    """Bernoulli outcomes: one uniform draw per (step, arm), so a higher mean never pays less."""
    return (rng.random(step_means.shape) < step_means).astype(np.float64)


def stationary_uniform(n_arms: int, horizon: int, rng: np.random.Generator) -> Environment:
    """Stationary Bernoulli arms whose means are drawn uniformly from [0, 1] once per seed."""
    _check_size(n_arms, horizon)
    means = rng.random(n_arms)
    step_means = np.broadcast_to(means, (horizon, n_arms)).copy()
    return Environment(step_means, _draw_rewards(step_means, rng))


def stationary_hard(n_arms: int, horizon: int, rng: np.random.Generator) -> Environment:
    """One arm at 0.5 and the others at 0.45; the best arm's position is shuffled per seed.

    The shuffle keeps a policy that breaks ties towards the first (or last) arm from being lucky.
    """
    _check_size(n_arms, horizon)
    means = np.full(n_arms, 0.45)
    means[rng.integers(n_arms)] = 0.5
    step_means = np.broadcast_to(means, (horizon, n_arms)).copy()
    return Environment(step_means, _draw_rewards(step_means, rng))


def reversed_at_half(n_arms: int, horizon: int, rng: np.random.Generator) -> Environment:
    """Uniform means whose ranks are reversed at T/2: the best arm becomes the worst, and so on.

    The set of mean values stays the same; only their assignment to arms changes, so the best
    mean (and hence the scale of the regret) is the same in both halves.
    """
    _check_size(n_arms, horizon)
    before = rng.random(n_arms)
    order = np.argsort(before)  # arm indices from worst to best
    after = np.empty(n_arms)
    after[order] = before[order[::-1]]  # the i-th worst arm takes the i-th best mean
    half = horizon // 2
    step_means = np.empty((horizon, n_arms))
    step_means[:half] = before
    step_means[half:] = after
    return Environment(step_means, _draw_rewards(step_means, rng))


def one_hot_contexts(
    n_contexts: int, n_arms: int, horizon: int, rng: np.random.Generator
) -> Environment:
    """Contexts drawn uniformly from `n_contexts` one-hot vectors, each with its own best arm.

    Each context's means are drawn uniformly from [0, 1]; the largest is then moved to a distinct
    arm per context (a random one-to-one assignment), so no single arm is best everywhere and a
    context-free policy pays for ignoring the context.
    """
    _check_size(n_arms, horizon)
    if not 2 <= n_contexts <= n_arms:
        raise ConfigError(
            f"need 2 <= contexts <= arms so that each context has its own best arm, "
            f"got {n_contexts} contexts for {n_arms} arms"
        )
    means = rng.random((n_contexts, n_arms))
    best_arm_of_context = rng.permutation(n_arms)[:n_contexts]
    for context, best in enumerate(best_arm_of_context):
        current = int(np.argmax(means[context]))
        means[context, [current, best]] = means[context, [best, current]]
    shown = rng.integers(n_contexts, size=horizon)
    step_means = means[shown]
    contexts = np.eye(n_contexts)[shown]
    return Environment(step_means, _draw_rewards(step_means, rng), contexts)


EnvironmentBuilder = Callable[[int, np.random.Generator], Environment]
"""Builds one seed's environment from (horizon, generator); the arm count is bound in."""


@dataclass(frozen=True)
class Workload:
    """A named family of environments; `build(horizon, seed)` gives one seed's draw."""

    key: str
    title: str
    n_arms: int
    context_dim: int | None
    builder: EnvironmentBuilder

    def build(self, horizon: int, seed: int) -> Environment:
        """The environment of `seed`: the same seed gives the same table for every policy."""
        # The workload's key enters the seed so that workloads do not share reward tables.
        entropy = [seed, *self.key.encode()]
        return self.builder(horizon, np.random.default_rng(entropy))


def standard_workloads() -> dict[str, Workload]:
    """The four workloads of the learning benchmark, by key."""
    return {
        "stationary": Workload(
            "stationary",
            "Stationary Bernoulli, K=10, means ~ U(0, 1) per seed",
            10,
            None,
            lambda horizon, rng: stationary_uniform(10, horizon, rng),
        ),
        "hard": Workload(
            "hard",
            "Stationary Bernoulli, K=10, one arm at 0.5 and nine at 0.45",
            10,
            None,
            lambda horizon, rng: stationary_hard(10, horizon, rng),
        ),
        "drift": Workload(
            "drift",
            "Best arm changes at T/2 (ranks reversed), K=10, means ~ U(0, 1)",
            10,
            None,
            lambda horizon, rng: reversed_at_half(10, horizon, rng),
        ),
        "contextual": Workload(
            "contextual",
            "5 one-hot contexts x 5 arms, each context with its own best arm",
            5,
            5,
            lambda horizon, rng: one_hot_contexts(5, 5, horizon, rng),
        ),
    }
