"""Shared base of the frequentist index policies: weighted pull counts and reward sums per arm."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from learning.base import FloatArray, Policy, array_from_state
from learning.errors import StateError
from learning.posterior import beta_prob_best, beta_std


class CountingPolicy(Policy):
    """A policy whose statistics are, per arm, the weighted pulls n_i and reward sum s_i.

    These policies hold no posterior, so `prob_best` and `is_cold` use the Beta(1 + s_i,
    1 + n_i - s_i) posterior that a uniform prior and the same data would give: a documented
    approximation that agrees with Thompson sampling's view of the same counts.
    """

    can_retract: ClassVar[bool] = True  # n_i and s_i are sums

    def _init_stats(self, arm_count: int, /) -> None:
        self._pulls: FloatArray = np.zeros(arm_count)
        self._sums: FloatArray = np.zeros(arm_count)

    def _update(
        self, index: int, reward: float, weight: float, _context: FloatArray | None, /
    ) -> None:
        self._pulls[index] += weight
        self._sums[index] += weight * reward

    def _means(self) -> FloatArray:
        """Empirical mean reward per arm (0 for an arm never pulled)."""
        return np.divide(
            self._sums, self._pulls, out=np.zeros_like(self._sums), where=self._pulls > 0
        )

    def _prob_best(self, _context: FloatArray | None, /) -> FloatArray:
        failures = self._pulls - self._sums
        return beta_prob_best(
            1.0 + self._sums, 1.0 + failures, self._side_rng, self._monte_carlo_draws
        )

    def _evidence(self, index: int, _context: FloatArray | None, /) -> tuple[float, float]:
        pulls, successes = float(self._pulls[index]), float(self._sums[index])
        return pulls, beta_std(1.0 + successes, 1.0 + pulls - successes)

    def _append_arm(self) -> None:
        self._pulls = np.append(self._pulls, 0.0)
        self._sums = np.append(self._sums, 0.0)

    def _delete_arm(self, index: int, /) -> None:
        self._pulls = np.delete(self._pulls, index)
        self._sums = np.delete(self._sums, index)

    def _stats_to_dict(self) -> dict[str, Any]:
        return {"pulls": self._pulls.tolist(), "sums": self._sums.tolist()}

    def _stats_from_dict(self, stats: Mapping[str, Any], /) -> None:
        shape = (len(self._arms),)
        pulls = array_from_state(stats, "pulls", shape)
        sums = array_from_state(stats, "sums", shape)
        if (pulls < 0).any() or (sums < 0).any() or (sums > pulls + 1e-9).any():
            raise StateError("state stats need 0 <= sums <= pulls for every arm")
        self._pulls, self._sums = pulls, sums


def first_untried(pulls: FloatArray) -> int | None:
    """Index of the first arm never pulled, or None: index policies play each arm once first.

    >>> first_untried(np.array([2.0, 0.0, 0.0])), first_untried(np.array([1.0, 1.0]))
    (1, None)
    """
    untried = np.flatnonzero(pulls <= 0.0)
    return int(untried[0]) if untried.size else None


def one_hot(index: int, size: int) -> FloatArray:
    """The propensity vector of a deterministic choice."""
    vector = np.zeros(size)
    vector[index] = 1.0
    return vector
