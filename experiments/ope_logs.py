"""Where off-policy logs come from: simulated scenarios with a known value, and the engine's store.

A `LoggingScenario` is a contextual Bernoulli world with a logging policy and a target policy,
both given as per-context distributions, so the target's true value is known exactly:
V = mean over contexts c of sum_k target[c, k] * table[c, k] (contexts are equally likely).

>>> import numpy as np
>>> scenario = LoggingScenario(
...     table=np.array([[0.2, 0.8]]), logging=np.array([[0.5, 0.5]]), target=np.array([[0.0, 1.0]])
... )
>>> round(scenario.true_value, 3)
0.8
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from engine.domain.evidence import Evidence, in_force, split_source_key
from engine.domain.ports import DecisionLog, OutcomeLog
from engine.domain.records import DecisionRecord
from engine.errors import ConfigError
from experiments.ope import LoggedBandit

__all__ = [
    "LoggingScenario",
    "decisions_with_rewards",
    "logs_from_decisions",
    "random_scenario",
    "target_probabilities",
]


class ProbabilisticPolicy(Protocol):
    """A policy that states its selection probabilities: the learning core's contract."""

    @property
    def arms(self) -> list[str]: ...

    @property
    def is_contextual(self) -> bool: ...

    def probabilities(self, context: np.ndarray | None = None) -> dict[str, float]: ...


def _check_distributions(name: str, probabilities: np.ndarray, shape: tuple[int, ...]) -> None:
    if probabilities.shape != shape:
        raise ConfigError(f"{name} must have shape {shape}, got {probabilities.shape}")
    if np.any(probabilities < 0) or not np.allclose(probabilities.sum(axis=1), 1.0):
        raise ConfigError(f"each row of {name} must be a probability distribution")


@dataclass(frozen=True)
class LoggingScenario:
    """A world (`table[c, k]` = mean reward of arm k in context c) with two policies in it."""

    table: np.ndarray
    logging: np.ndarray
    target: np.ndarray

    def __post_init__(self) -> None:
        if self.table.ndim != 2 or np.any((self.table < 0) | (self.table > 1)):
            raise ConfigError("table must be a (contexts x arms) matrix of means in [0, 1]")
        _check_distributions("logging", self.logging, self.table.shape)
        _check_distributions("target", self.target, self.table.shape)
        if np.any((self.target > 0) & (self.logging == 0)):
            raise ConfigError("the logging policy must give every arm the target plays a chance")

    @property
    def true_value(self) -> float:
        """The target policy's exact expected reward per decision."""
        return float((self.target * self.table).sum(axis=1).mean())

    def draw(self, count: int, rng: np.random.Generator) -> tuple[LoggedBandit, np.ndarray]:
        """`count` logged decisions and the target's probabilities for each logged context."""
        if count < 2:
            raise ConfigError(f"count must be at least 2, got {count}")
        context_count, arm_count = self.table.shape
        shown = rng.integers(context_count, size=count)
        cumulative = np.cumsum(self.logging[shown], axis=1)
        draws = rng.random(count)[:, None]
        actions = np.minimum((draws > cumulative).sum(axis=1), arm_count - 1)
        rewards = (rng.random(count) < self.table[shown, actions]).astype(float)
        logs = LoggedBandit(
            arms=tuple(f"arm{k}" for k in range(arm_count)),
            actions=actions,
            rewards=rewards,
            propensities=self.logging[shown, actions],
            contexts=np.eye(context_count)[shown],
        )
        return logs, self.target[shown]


def random_scenario(
    rng: np.random.Generator, contexts: int = 4, arms: int = 5, exploration: float = 0.2
) -> LoggingScenario:
    """A random world, an epsilon-greedy-ish logger and a different near-greedy target.

    The logger leans towards an arbitrary arm per context (not the best one), so the target, which
    leans towards the best arm, is genuinely off-policy; `exploration` keeps every propensity above
    exploration / arms, the overlap that IPS needs.
    """
    if not 0.0 < exploration <= 1.0:
        raise ConfigError(f"exploration must lie in (0, 1], got {exploration}")
    table = rng.uniform(0.1, 0.9, size=(contexts, arms))
    favourite = rng.integers(arms, size=contexts)
    logging = np.full((contexts, arms), exploration / arms)
    logging[np.arange(contexts), favourite] += 1.0 - exploration
    target = np.full((contexts, arms), 0.1 / arms)
    target[np.arange(contexts), table.argmax(axis=1)] += 0.9
    return LoggingScenario(table=table, logging=logging, target=target)


def logs_from_decisions(
    decisions: Sequence[tuple[DecisionRecord, float]],
    arms: Sequence[str],
    role: str = "path",
) -> LoggedBandit:
    """Logs from stored decisions and their rewards (e.g. the mean of their outcomes' rewards).

    Every decision must have chosen an arm of `role` among `arms`, logged that choice's
    propensity, and (for a contextual target) its context; a decision that lacks one is an error
    that names it, because silently dropping it would bias the estimate.
    """
    if not decisions:
        raise ConfigError("no decisions to evaluate")
    index = {arm: k for k, arm in enumerate(arms)}
    actions, rewards, propensities, contexts = [], [], [], []
    for record, reward in decisions:
        choice = record.choices.get(role)
        if choice not in index:
            raise ConfigError(
                f"decision {record.decision_id!r} chose {choice!r} for {role!r}, not one of {arms}"
            )
        propensity = _propensity(record.propensities, role, record.decision_id)
        actions.append(index[str(choice)])
        rewards.append(reward)
        propensities.append(propensity)
        contexts.append(record.context)
    has_context = all(context is not None for context in contexts)
    return LoggedBandit(
        arms=tuple(arms),
        actions=np.array(actions),
        rewards=np.array(rewards, dtype=float),
        propensities=np.array(propensities, dtype=float),
        contexts=np.array(contexts, dtype=float) if has_context else None,
    )


def _propensity(propensities: Mapping[str, float], role: str, decision_id: str) -> float:
    if role not in propensities:
        raise ConfigError(f"decision {decision_id!r} logged no propensity for {role!r}")
    return float(propensities[role])


def decisions_with_rewards(
    decisions: DecisionLog, outcomes: OutcomeLog, namespace: str, role: str = "path"
) -> list[tuple[DecisionRecord, float]]:
    """Every decision of `namespace` with an outcome that teaches `role`, with that reward.

    A decision can have several outcomes (checker, user, referee, corrections); as the policies
    learn it, one of them is in force per role (`engine.domain.evidence.in_force`: the most
    trusted source's latest score), and that is the logged reward.
    """
    scores: dict[str, dict[str, Evidence]] = {}
    after = 0
    while batch := outcomes.outcomes_since(namespace, after):
        for outcome in batch:
            source, _revision = split_source_key(outcome.source)
            standing = scores.setdefault(outcome.decision_id, {})
            earlier = standing.get(source)
            first_seq = earlier.first_seq if earlier is not None else outcome.seq
            standing[source] = Evidence(source, outcome.reward, outcome.weight, first_seq)
        after = batch[-1].seq
    rewards = {decision_id: in_force(standing, role) for decision_id, standing in scores.items()}
    return [
        (decisions.get_decision(decision_id), evidence.reward)
        for decision_id, evidence in rewards.items()
        if evidence is not None
    ]


def target_probabilities(policy: ProbabilisticPolicy, logs: LoggedBandit) -> np.ndarray:
    """The target policy's probability of each arm at each logged decision, as OPE needs them."""
    if sorted(policy.arms) != sorted(logs.arms):
        raise ConfigError(f"the policy's arms {policy.arms} are not the logs' arms {logs.arms}")
    if policy.is_contextual and logs.contexts is None:
        raise ConfigError("a contextual target policy needs logs with contexts")
    rows = []
    for index in range(len(logs)):
        context = (
            logs.contexts[index] if policy.is_contextual and logs.contexts is not None else None
        )
        probabilities = policy.probabilities(context=context)
        rows.append([probabilities[arm] for arm in logs.arms])
    return np.array(rows)
