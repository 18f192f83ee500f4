"""Sliding-window UCB: UCB computed only over the most recent observations."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from learning.base import COLD_PARAMS, FloatArray, array_from_state
from learning.counting import CountingPolicy, first_untried, one_hot
from learning.errors import StateError
from learning.params import Param


class SlidingWindowUCB(CountingPolicy):
    """Sliding-window UCB (Garivier & Moulines 2011, "On upper-confidence bound policies for
    switching bandit problems").

    Only the last `window` observations count. With N_i and mean_i the (weighted) pulls and mean
    of arm i inside the window and n the window's total weight, the policy plays::

        argmax_i  mean_i + sqrt(xi * ln(min(n, window)) / N_i)

    and an arm with no observation in the window first (so every arm is revisited at least once
    per window: that is how it notices a neglected arm improving). Ties go to the lowest index,
    so the choice is deterministic and its propensity one-hot.

    >>> policy = SlidingWindowUCB(["a", "b"], seed=0, window=50)
    >>> for step in range(300):  # "a" pays, then only "b" does
    ...     arm = policy.select()
    ...     policy.update(arm, 1.0 if (arm == "a") == (step < 150) else 0.0)
    >>> policy.select()
    'b'
    """

    name: ClassVar[str] = "sliding_window_ucb"
    can_retract: ClassVar[bool] = False  # its past is aged, windowed or tested: not a sum
    summary: ClassVar[str] = "UCB over the last `window` observations (drifting rewards)"
    param_spec: ClassVar[Mapping[str, Param]] = {
        **COLD_PARAMS,
        "window": Param(1000, low=1, integer=True, doc="observations remembered"),
        "exploration": Param(0.6, low=0.0, doc="xi, the bonus multiplier (0.6 in the paper)"),
    }

    def _init_stats(self, arm_count: int, /) -> None:
        super()._init_stats(arm_count)
        window = int(self.params["window"] or 1)
        self._slot_arm = np.full(window, -1, dtype=np.int64)  # -1: an empty slot
        self._slot_weight = np.zeros(window)
        self._slot_reward = np.zeros(window)  # weight * reward
        self._cursor = 0

    def _update(
        self, index: int, reward: float, weight: float, _context: FloatArray | None, /
    ) -> None:
        cursor = self._cursor
        old = int(self._slot_arm[cursor])
        if old >= 0:  # the oldest observation leaves the window
            self._pulls[old] -= self._slot_weight[cursor]
            self._sums[old] -= self._slot_reward[cursor]
        self._slot_arm[cursor] = index
        self._slot_weight[cursor] = weight
        self._slot_reward[cursor] = weight * reward
        self._pulls[index] += weight
        self._sums[index] += weight * reward
        self._cursor = (cursor + 1) % self._slot_arm.size
        if self._cursor == 0:
            self._resum()

    def _resum(self) -> None:
        # Adding and subtracting floats for ever accumulates rounding error; recounting the
        # window once per lap keeps the running sums exact at O(window / window) = O(1) cost.
        filled = self._slot_arm >= 0
        arm_count = len(self._arms)
        arms = self._slot_arm[filled]
        pulls = np.bincount(arms, self._slot_weight[filled], minlength=arm_count)
        sums = np.bincount(arms, self._slot_reward[filled], minlength=arm_count)
        self._pulls, self._sums = pulls.astype(np.float64), sums.astype(np.float64)

    def _select(self, _context: FloatArray | None, /) -> int:
        untried = first_untried(self._pulls)
        if untried is not None:
            return untried
        horizon = min(float(self._pulls.sum()), float(self._slot_arm.size))
        xi = float(self.params["exploration"] or 0.0)
        bonus = np.sqrt(xi * np.log(max(horizon, 1.0)) / self._pulls)
        return int((self._means() + bonus).argmax())

    def _probabilities(self, context: FloatArray | None, /) -> FloatArray:
        return one_hot(self._select(context), len(self._arms))

    def _delete_arm(self, index: int, /) -> None:
        super()._delete_arm(index)
        mine = self._slot_arm == index
        self._slot_arm[mine] = -1
        self._slot_weight[mine] = 0.0
        self._slot_reward[mine] = 0.0
        self._slot_arm[self._slot_arm > index] -= 1

    def _stats_to_dict(self) -> dict[str, Any]:
        return {
            **super()._stats_to_dict(),
            "slot_arm": self._slot_arm.tolist(),
            "slot_weight": self._slot_weight.tolist(),
            "slot_reward": self._slot_reward.tolist(),
            "cursor": self._cursor,
        }

    def _stats_from_dict(self, stats: Mapping[str, Any], /) -> None:
        window = self._slot_arm.size
        slot_arm = array_from_state(stats, "slot_arm", (window,))
        slot_weight = array_from_state(stats, "slot_weight", (window,))
        slot_reward = array_from_state(stats, "slot_reward", (window,))
        cursor = stats.get("cursor")
        if isinstance(cursor, bool) or not isinstance(cursor, int) or not 0 <= cursor < window:
            raise StateError(f"state stats 'cursor' must be an integer in [0, {window})")
        valid_arms = (slot_arm == np.round(slot_arm)) & (slot_arm >= -1)
        if not valid_arms.all() or (slot_arm >= len(self._arms)).any():
            raise StateError("state stats 'slot_arm' holds an index that is not an arm")
        super()._stats_from_dict(stats)
        self._slot_arm = slot_arm.astype(np.int64)
        self._slot_weight, self._slot_reward, self._cursor = slot_weight, slot_reward, cursor
