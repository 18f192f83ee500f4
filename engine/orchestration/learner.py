"""The in-memory learning state of one namespace: policies per role, fed only by outcomes.

A `Learner` is a cache of the store's outcome log. It changes in exactly two ways: an outcome is
replayed into it (`apply`), or an arm is added or retired. Pre-execution guesses (ratings,
feasibility) have no way in, by construction. Every process that replays the same outcomes in the
same order holds the same statistics, which is how replicas sharing a store learn together.
"""

import math
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine.domain.records import ArmTally, LearnedOutcome
from learning import PolicyLike

__all__ = ["ROLES", "Learner", "PolicyFactory", "roles_taught_by"]

ROLES = ("path", "tool")
TOOL_SOURCE = "tool"  # the outcome of running the chosen tool: teaches the tool policy only


# (role, arms, context_dim) -> a fresh policy for that role
PolicyFactory = Callable[[str, list[str], int], PolicyLike]


def roles_taught_by(source: str) -> tuple[str, ...]:
    """Which policy roles an outcome source teaches.

    A tool run's own success or failure says nothing about the reasoning path, so the "tool"
    source teaches only the tool policy; a judgement of the answer teaches both.

    >>> roles_taught_by("tool"), roles_taught_by("checker")
    (('tool',), ('path', 'tool'))
    """
    return (TOOL_SOURCE,) if source == TOOL_SOURCE else ROLES


@dataclass
class ReplayReport:
    """What one replay batch did: outcomes applied, skipped (with why) and arms retired."""

    applied: int = 0
    skipped: list[str] = field(default_factory=list)
    retired: list[tuple[str, str, str]] = field(default_factory=list)  # role, arm, reason


RetirementRule = Callable[[str, str, ArmTally], str | None]  # role, arm, tally -> reason or None


class Learner:
    """Policies per role plus statistics, updated only by replaying outcomes in seq order."""

    def __init__(
        self,
        policies: Mapping[str, PolicyLike],
        context_dim: int,
        *,
        retirable: Callable[[str, str], bool] | None = None,
        retirement_rule: RetirementRule | None = None,
        recent_window: int = 8,
    ) -> None:
        self.policies = dict(policies)
        self.context_dim = context_dim
        self.last_seq = 0
        self.tallies: dict[tuple[str, str], ArmTally] = {}
        self.retired: dict[tuple[str, str], str] = {}
        # Without a rule nothing is ever retired (templates are never retired).
        self._retirable = retirable or (lambda _role, _arm: False)
        self._retirement_rule = retirement_rule or (lambda _role, _arm, _tally: None)
        self._recent: dict[tuple[float, ...], deque[float]] = {}
        self._recent_window = recent_window

    def policy_context(self, role: str, context: Sequence[float] | None) -> np.ndarray | None:
        """The context as the role's policy takes it: an array for contextual ones, else None."""
        if not self.policies[role].is_contextual or context is None:
            return None
        return np.asarray(context, dtype=float)

    @property
    def contexts_seen(self) -> list[tuple[float, ...]]:
        """Every context a path outcome has taught, in the order first seen."""
        return [key for key in self._recent if key]

    def recent_rewards(self, context: Sequence[float] | None) -> list[float]:
        """The latest path rewards for queries with this exact context, oldest first."""
        return list(self._recent.get(_context_key(context), ()))

    def apply(self, outcomes: Sequence[LearnedOutcome]) -> ReplayReport:
        """Replay outcomes (in seq order) into the policies; retire arms that keep failing."""
        report = ReplayReport()
        for outcome in outcomes:
            if outcome.seq <= self.last_seq:
                continue
            self.last_seq = outcome.seq
            problem = self._apply_one(outcome)
            if problem:
                report.skipped.append(f"seq {outcome.seq}: {problem}")
            else:
                report.applied += 1
            report.retired.extend(self._retire_failing(outcome))
        return report

    def _apply_one(self, outcome: LearnedOutcome) -> str | None:
        if outcome.context is not None and len(outcome.context) != self.context_dim:
            return (
                f"context has {len(outcome.context)} features, the policies take {self.context_dim}"
            )
        if not (math.isfinite(outcome.reward) and math.isfinite(outcome.weight)):
            return "reward or weight is not finite"
        taught = []
        for role in roles_taught_by(outcome.source):
            arm = outcome.choices.get(role)
            live = arm is not None and arm in self.policies[role].arms
            if arm is None or not (live or (role, arm) in self.retired):
                continue  # an arm this namespace never had (e.g. a template since removed)
            if live:  # a retired arm's late outcomes still count in its record, not in a policy
                context = self.policy_context(role, outcome.context)
                self.policies[role].update(
                    arm, outcome.reward, context=context, weight=outcome.weight
                )
            tally = self.tallies.get((role, arm), ArmTally())
            self.tallies[(role, arm)] = tally.plus(outcome.reward, outcome.weight)
            taught.append(role)
        if "path" in taught:
            key = _context_key(outcome.context)
            window = self._recent.setdefault(key, deque(maxlen=self._recent_window))
            window.append(outcome.reward)
        return None if taught else "none of its arms is known here"

    def _retire_failing(self, outcome: LearnedOutcome) -> list[tuple[str, str, str]]:
        retired = []
        for role in roles_taught_by(outcome.source):
            arm = outcome.choices.get(role)
            if arm is None or not self._retirable(role, arm) or arm not in self.policies[role].arms:
                continue
            reason = self._retirement_rule(role, arm, self.tallies.get((role, arm), ArmTally()))
            if reason is not None:
                self.retire(role, arm, reason)
                retired.append((role, arm, reason))
        return retired

    def state(self) -> dict[str, Any]:
        """Everything learned as of `last_seq`, JSON-safe (`engine.orchestration.checkpoints`
        stores it)."""
        return {
            "last_seq": self.last_seq,
            "policies": {role: policy.to_dict() for role, policy in self.policies.items()},
            "tallies": [
                [role, arm, tally.pulls, tally.reward_sum, tally.outcomes]
                for (role, arm), tally in self.tallies.items()
            ],
            "retired": [[role, arm, reason] for (role, arm), reason in self.retired.items()],
            "recent": [[list(key), list(window)] for key, window in self._recent.items()],
        }

    def restore(self, state: Mapping[str, Any], policies: Mapping[str, PolicyLike]) -> None:
        """Take over `state()` output, its policies already rebuilt; all or nothing."""
        last_seq = int(state["last_seq"])
        tallies = {
            (str(role), str(arm)): ArmTally(float(pulls), float(reward_sum), int(outcomes))
            for role, arm, pulls, reward_sum, outcomes in state["tallies"]
        }
        retired = {(str(role), str(arm)): str(reason) for role, arm, reason in state["retired"]}
        recent = {
            tuple(float(value) for value in key): deque(
                (float(reward) for reward in window), maxlen=self._recent_window
            )
            for key, window in state["recent"]
        }
        self.policies, self.last_seq = dict(policies), last_seq
        self.tallies, self.retired, self._recent = tallies, retired, recent

    def add_arm(self, role: str, arm: str) -> None:
        """Add a live arm (a new detour path); idempotent."""
        if arm not in self.policies[role].arms and (role, arm) not in self.retired:
            self.policies[role].add_arm(arm)

    def retire(self, role: str, arm: str, reason: str) -> None:
        """Remove an arm from its policy for good; its tally stays for the record."""
        if arm in self.policies[role].arms:
            self.policies[role].remove_arm(arm)
        self.retired[(role, arm)] = reason


def _context_key(context: Sequence[float] | None) -> tuple[float, ...]:
    return tuple(float(value) for value in context) if context is not None else ()
