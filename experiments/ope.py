"""Off-policy evaluation: estimate a target policy's value from logs of another policy's decisions.

Every decision logs the propensity of its choice (the probability that the logging policy picked
the arm it picked), so logs gathered while one policy ran can score another:

- IPS (Horvitz & Thompson 1952; Dudik et al. 2011): V = mean(w_i r_i), w_i = pi(a_i|x_i) / mu_i.
  Unbiased when every arm the target may play had mu > 0; high variance when weights are large.
- Self-normalised IPS (Swaminathan & Joachims 2015): V = sum(w_i r_i) / sum(w_i). Slightly biased,
  bounded in [0, 1], far lower variance.
- Doubly robust (Dudik, Langford & Li 2011): V = mean(sum_a pi(a|x_i) q(x_i, a)
  + w_i (r_i - q(x_i, a_i))). Unbiased if either the propensities or the reward model q are right.

Intervals are normal-approximation intervals from each estimator's influence terms (the delta
method for the self-normalised ratio).

>>> import numpy as np
>>> logs = LoggedBandit(
...     arms=("a", "b"),
...     actions=np.array([0, 1, 0, 1]),
...     rewards=np.array([1.0, 0.0, 1.0, 0.0]),
...     propensities=np.full(4, 0.5),
... )
>>> always_a = np.tile([1.0, 0.0], (4, 1))
>>> ips(logs, always_a).value
1.0
"""

from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

from engine.errors import ConfigError

__all__ = [
    "Estimate",
    "LoggedBandit",
    "doubly_robust",
    "ips",
    "snips",
    "tabular_reward_model",
]


@dataclass(frozen=True)
class LoggedBandit:
    """Logged decisions: the arm played, its reward and the logging policy's propensity for it."""

    arms: tuple[str, ...]
    actions: np.ndarray  # (n,) index into `arms`
    rewards: np.ndarray  # (n,) in [0, 1]
    propensities: np.ndarray  # (n,) in (0, 1]
    contexts: np.ndarray | None = None  # (n, d) what the policy saw, when it saw anything

    def __post_init__(self) -> None:
        count = self.actions.shape[0] if self.actions.ndim == 1 else -1
        if count < 1:
            raise ConfigError("logs need a non-empty 1-D array of actions")
        for label, array in (("rewards", self.rewards), ("propensities", self.propensities)):
            if array.shape != (count,):
                raise ConfigError(f"{label} must have one entry per action ({count})")
        if self.contexts is not None and (
            self.contexts.ndim != 2 or self.contexts.shape[0] != count
        ):
            raise ConfigError(f"contexts must be a matrix with one row per action ({count})")
        if self.actions.min() < 0 or self.actions.max() >= len(self.arms):
            raise ConfigError(f"actions must index the {len(self.arms)} arms")
        if not np.all(np.isfinite(self.rewards)) or np.any((self.rewards < 0) | (self.rewards > 1)):
            raise ConfigError("rewards must be finite numbers in [0, 1]")
        bad = ~np.isfinite(self.propensities) | (self.propensities <= 0) | (self.propensities > 1)
        if np.any(bad):
            first = int(np.flatnonzero(bad)[0])
            raise ConfigError(
                f"propensities must lie in (0, 1]: row {first} has {self.propensities[first]!r}"
                " (a zero propensity means the log cannot say anything about that choice)"
            )

    def __len__(self) -> int:
        return int(self.actions.shape[0])


@dataclass(frozen=True)
class Estimate:
    """A policy value estimate with its normal-approximation confidence interval."""

    estimator: str
    value: float
    std_error: float
    low: float
    high: float
    effective_sample_size: float  # (sum w)^2 / sum w^2: how many logs the estimate really uses

    def covers(self, value: float) -> bool:
        """Whether `value` lies inside the interval."""
        return self.low <= value <= self.high


def _weights(logs: LoggedBandit, target: np.ndarray) -> np.ndarray:
    expected = (len(logs), len(logs.arms))
    if target.shape != expected:
        raise ConfigError(f"target probabilities must have shape {expected}, got {target.shape}")
    if np.any(target < 0) or not np.allclose(target.sum(axis=1), 1.0, atol=1e-6):
        raise ConfigError("each row of target probabilities must be a distribution (sum 1)")
    return np.asarray(target[np.arange(len(logs)), logs.actions] / logs.propensities)


def _estimate(
    name: str, value: float, influence: np.ndarray, weights: np.ndarray, confidence: float
) -> Estimate:
    if not 0.0 < confidence < 1.0:
        raise ConfigError(f"confidence must lie in (0, 1), got {confidence}")
    count = influence.shape[0]
    std_error = float(np.std(influence, ddof=1) / np.sqrt(count)) if count > 1 else float("inf")
    z = float(norm.ppf(0.5 + confidence / 2.0))
    total = float(weights.sum())
    squares = float(np.square(weights).sum())
    return Estimate(
        estimator=name,
        value=value,
        std_error=std_error,
        low=value - z * std_error,
        high=value + z * std_error,
        effective_sample_size=total * total / squares if squares > 0 else 0.0,
    )


def ips(logs: LoggedBandit, target: np.ndarray, confidence: float = 0.95) -> Estimate:
    """Inverse propensity scoring; `target[i, k]` is pi(arm k | context i)."""
    weights = _weights(logs, target)
    terms = weights * logs.rewards
    return _estimate("ips", float(terms.mean()), terms, weights, confidence)


def snips(logs: LoggedBandit, target: np.ndarray, confidence: float = 0.95) -> Estimate:
    """Self-normalised IPS; its interval comes from the delta method for a ratio of means."""
    weights = _weights(logs, target)
    mean_weight = float(weights.mean())
    if mean_weight == 0.0:
        raise ConfigError("the target policy never plays an arm that the logs contain")
    value = float((weights * logs.rewards).sum() / weights.sum())
    influence = weights * (logs.rewards - value) / mean_weight
    return _estimate("snips", value, influence, weights, confidence)


def doubly_robust(
    logs: LoggedBandit,
    target: np.ndarray,
    reward_model: np.ndarray,
    confidence: float = 0.95,
) -> Estimate:
    """Doubly robust; `reward_model[i, k]` predicts the reward of arm k in context i.

    The reward model should be fitted without row i (see `tabular_reward_model`'s cross-fitting),
    else its errors correlate with the rewards it corrects and the interval is too narrow.
    """
    weights = _weights(logs, target)
    if reward_model.shape != target.shape:
        raise ConfigError(f"reward_model must have shape {target.shape}, got {reward_model.shape}")
    rows = np.arange(len(logs))
    direct = (target * reward_model).sum(axis=1)
    terms = direct + weights * (logs.rewards - reward_model[rows, logs.actions])
    return _estimate("doubly_robust", float(terms.mean()), terms, weights, confidence)


def tabular_reward_model(
    logs: LoggedBandit, folds: int = 2, prior_strength: float = 1.0, seed: int = 0
) -> np.ndarray:
    """Cross-fitted per-(context, arm) mean rewards, shrunk towards each arm's overall mean.

    Rows are split into `folds` folds; each fold's predictions come from the other folds only.
    Contexts are grouped by their exact values (one-hot family vectors in practice); a group with
    few observations of an arm leans on that arm's overall mean through `prior_strength`
    pseudo-observations, and an arm never seen falls back to the overall mean reward.
    """
    if folds < 2:
        raise ConfigError(f"folds must be at least 2, got {folds}")
    if prior_strength <= 0:
        raise ConfigError(f"prior_strength must be positive, got {prior_strength}")
    count, arm_count = len(logs), len(logs.arms)
    if logs.contexts is None:
        groups = np.zeros(count, dtype=np.int64)
    else:
        groups = np.unique(logs.contexts, axis=0, return_inverse=True)[1].reshape(-1)
    group_count = int(groups.max()) + 1
    fold_of_row = np.random.default_rng(seed).permutation(count) % folds
    model = np.empty((count, arm_count))
    for fold in range(folds):
        train = fold_of_row != fold
        model[~train] = _fit_tabular(logs, groups, train, group_count, prior_strength)[
            groups[~train]
        ]
    return model


def _fit_tabular(
    logs: LoggedBandit,
    groups: np.ndarray,
    train: np.ndarray,
    group_count: int,
    prior_strength: float,
) -> np.ndarray:
    arm_count = len(logs.arms)
    actions, rewards, train_groups = logs.actions[train], logs.rewards[train], groups[train]
    overall = float(rewards.mean()) if rewards.size else 0.5
    arm_sum = np.bincount(actions, weights=rewards, minlength=arm_count)
    arm_n = np.bincount(actions, minlength=arm_count)
    arm_mean = (arm_sum + prior_strength * overall) / (arm_n + prior_strength)
    cell = train_groups * arm_count + actions
    cell_sum = np.bincount(cell, weights=rewards, minlength=group_count * arm_count)
    cell_n = np.bincount(cell, minlength=group_count * arm_count)
    shrunk = (cell_sum.reshape(group_count, arm_count) + prior_strength * arm_mean) / (
        cell_n.reshape(group_count, arm_count) + prior_strength
    )
    return np.asarray(shrunk)
