"""Thompson sampling that restarts when a GLR change-point test fires: the drift default."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from learning.base import COLD_PARAMS, FloatArray, Policy, array_from_state
from learning.change_point import bernoulli_glr, glr_threshold
from learning.errors import StateError
from learning.params import Param
from learning.thompson import ThompsonSampling

# Splits tried per test: the cost stays O(256) however long the history, and a change is located
# to within history / 256 observations (Besson et al. 2022, section 6, subsample split points).
_MAX_SPLITS = 256


class GLRThompsonSampling(ThompsonSampling):
    """Thompson sampling with a Bernoulli GLR change detector and global restart.

    Besson, Kaufmann, Maillard & Seznec (2022), "Efficient change-point detection for tackling
    piecewise-stationary bandits" (JMLR), with Thompson sampling in place of kl-UCB. Between
    changes this is plain Beta-Bernoulli Thompson sampling. Each arm also keeps the cumulative
    weights W and reward sums S of its observations since the last restart; every
    `check_every` observations of the arm just played, the policy computes::

        GLR = max_s  W_s kl(S_s/W_s, S/W) + (W - W_s) kl((S - S_s)/(W - W_s), S/W)

    and if it exceeds beta(n, delta) = ln(3 n^(3/2) / delta) (n: the arm's observations), it
    forgets everything (every arm back to the prior): after a silent change the old evidence of
    every arm is suspect, and a global restart is what the paper recommends. The detector
    watches the arm that is played most, so a change that hurts the current best arm is caught
    within a few dozen pulls, and one that lifts a neglected arm is caught through Thompson
    sampling's own occasional pulls of it (slower). `forced_exploration` (alpha in the paper)
    mixes in uniform choices to catch the latter faster, at a stationary cost of about
    alpha * T * (mean gap); it is off by default.

    >>> policy = GLRThompsonSampling(["a", "b"], seed=3)
    >>> for step in range(400):  # "a" is best, then silently becomes worst
    ...     arm = policy.select()
    ...     good = (arm == "a") == (step < 200)
    ...     policy.update(arm, 0.9 if good else 0.1)
    >>> policy.restarts >= 1, policy.select()
    (True, 'b')
    """

    choice_is_posterior_draw = False  # chooses by its own rule, not by a posterior draw

    name: ClassVar[str] = "glr_thompson"
    can_retract: ClassVar[bool] = False  # its past is aged, windowed or tested: not a sum
    summary: ClassVar[str] = (
        "Thompson sampling + GLR change detection with restart (recommended when rewards drift)"
    )
    param_spec: ClassVar[Mapping[str, Param]] = {
        **COLD_PARAMS,
        "prior_alpha": Param(1.0, low=0.0, low_open=True, doc="prior successes per arm"),
        "prior_beta": Param(1.0, low=0.0, low_open=True, doc="prior failures per arm"),
        "confidence": Param(
            0.001, low=0.0, high=1.0, low_open=True, high_open=True, doc="delta: false alarm rate"
        ),
        "check_every": Param(10, low=1, integer=True, doc="test an arm every this many pulls"),
        "forced_exploration": Param(0.0, low=0.0, high=1.0, doc="alpha: uniform choice share"),
        "max_history": Param(
            4096, low=16, integer=True, doc="observations kept per arm for the test"
        ),
    }

    def _init_stats(self, arm_count: int, /) -> None:
        super()._init_stats(arm_count)
        # Read once: parameters never change, and these are read on every step.
        self._check_every = int(self.params["check_every"] or 1)
        self._confidence = float(self.params["confidence"] or 1.0)
        self._forced_exploration = float(self.params["forced_exploration"] or 0.0)
        self._histories: list[_History] = [self._new_history() for _ in range(arm_count)]
        self.restarts = 0

    def _new_history(self) -> _History:
        return _History(int(self.params["max_history"] or 16))

    # Thompson sampling inlines its own update for speed; this `_update` does more, so take the
    # general path that validates and then calls it.
    update = Policy.update

    def _update(
        self, index: int, reward: float, weight: float, _context: FloatArray | None, /
    ) -> None:
        """Update the posterior, record the observation and restart if a change is detected."""
        self._alpha[index] += weight * reward
        self._beta[index] += weight - weight * reward
        history = self._histories[index]
        history.append(weight, weight * reward)
        if history.size % self._check_every == 0 and self._changed(history):
            self._restart()

    def _changed(self, history: _History) -> bool:
        weights, sums = history.cumulative()
        threshold = glr_threshold(history.size, self._confidence)
        return bernoulli_glr(weights, sums, _MAX_SPLITS) > threshold

    def _restart(self) -> None:
        self._ab[:] = self._prior[:, None]
        for history in self._histories:
            history.clear()
        self.restarts += 1

    def _select(self, context: FloatArray | None, /) -> int:
        alpha = self._forced_exploration
        if alpha > 0.0 and self._rng.random() < alpha:
            return int(self._rng.integers(len(self._arms)))
        return super()._select(context)

    def select(self, context: Any = None) -> str:
        """Thompson sampling's choice (or, with probability alpha, a uniform one)."""
        return self._arms[self._select(self._check_context(context))]

    def _probabilities(self, context: FloatArray | None, /) -> FloatArray:
        alpha = float(self.params["forced_exploration"] or 0.0)
        thompson = super()._probabilities(context)
        return (1.0 - alpha) * thompson + alpha / len(self._arms)

    def _prob_best(self, context: FloatArray | None, /) -> FloatArray:
        return super()._probabilities(context)

    def _append_arm(self) -> None:
        super()._append_arm()
        self._histories.append(self._new_history())

    def _delete_arm(self, index: int, /) -> None:
        super()._delete_arm(index)
        del self._histories[index]

    def _stats_to_dict(self) -> dict[str, Any]:
        # The running sums themselves are saved (not per-observation values) so that a loaded
        # policy computes bit-identical statistics and hence makes identical decisions.
        cumulative = [history.cumulative() for history in self._histories]
        return {
            **super()._stats_to_dict(),
            "restarts": self.restarts,
            "cumulative_weights": [weights.tolist() for weights, _ in cumulative],
            "cumulative_rewards": [sums.tolist() for _, sums in cumulative],
        }

    def _stats_from_dict(self, stats: Mapping[str, Any], /) -> None:
        weights, sums = stats.get("cumulative_weights"), stats.get("cumulative_rewards")
        arm_count = len(self._arms)
        if not (isinstance(weights, list) and isinstance(sums, list)):
            raise StateError(
                "state stats 'cumulative_weights' and 'cumulative_rewards' must be lists"
            )
        if len(weights) != arm_count or len(sums) != arm_count:
            raise StateError(f"state stats need one history per arm ({arm_count})")
        limit = int(self.params["max_history"] or 16)
        histories = [
            _History.from_lists(arm_weights, arm_sums, limit)
            for arm_weights, arm_sums in zip(weights, sums, strict=True)
        ]
        restarts = stats.get("restarts")
        if isinstance(restarts, bool) or not isinstance(restarts, int) or restarts < 0:
            raise StateError(
                f"state stats 'restarts' must be a non-negative integer, got {restarts!r}"
            )
        super()._stats_from_dict(stats)
        self._histories, self.restarts = histories, restarts


class _History:
    """One arm's latest observations since the last restart, as cumulative-sum buffers.

    At most `limit` observations are kept: when full, the older half is dropped (by rebasing the
    running sums). That bounds memory, saved state and the O(n) cost of a test, while keeping
    thousands of pre-change observations to compare recent ones against.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.size = 0
        self._last_weight = self._last_sum = 0.0
        self._weights = np.zeros(16)  # cumulative weights W_1..W_n
        self._sums = np.zeros(16)  # cumulative weighted rewards S_1..S_n

    @classmethod
    def from_lists(cls, weights: Any, sums: Any, limit: int) -> _History:
        """Rebuild a history from saved running sums, checking that they are consistent."""
        size = len(weights) if isinstance(weights, list) else -1
        columns = {"cumulative_weights": weights, "cumulative_rewards": sums}
        cumulative_weights = array_from_state(columns, "cumulative_weights", (size,))
        cumulative_sums = array_from_state(columns, "cumulative_rewards", (size,))
        steps_w = np.diff(cumulative_weights, prepend=0.0)
        steps_r = np.diff(cumulative_sums, prepend=0.0)
        if (steps_w <= 0).any() or (steps_r < -1e-9).any() or (steps_r > steps_w + 1e-9).any():
            raise StateError("state history is not a running sum of weights in (0, 1] and rewards")
        if size > limit:
            raise StateError(f"state history holds {size} observations, above max_history {limit}")
        history = cls(limit)
        history.size = size
        history._weights = np.concatenate((cumulative_weights, np.zeros(16)))
        history._sums = np.concatenate((cumulative_sums, np.zeros(16)))
        if size:
            history._last_weight = float(cumulative_weights[-1])
            history._last_sum = float(cumulative_sums[-1])
        return history

    def append(self, weight: float, weighted_reward: float) -> None:
        """Add one observation (amortised O(1): the buffers double when full)."""
        if self.size == self.limit:
            self._drop_older_half()
        size = self.size
        if size == self._weights.size:
            self._weights = np.concatenate((self._weights, np.zeros(size)))
            self._sums = np.concatenate((self._sums, np.zeros(size)))
        # The running totals live in Python floats: reading numpy scalars back costs more.
        self._last_weight += weight
        self._last_sum += weighted_reward
        self._weights[size] = self._last_weight
        self._sums[size] = self._last_sum
        self.size = size + 1

    def _drop_older_half(self) -> None:
        keep = self.size - self.size // 2
        start = self.size - keep
        base_weight, base_sum = self._weights[start - 1], self._sums[start - 1]
        self._weights[:keep] = self._weights[start : self.size] - base_weight
        self._sums[:keep] = self._sums[start : self.size] - base_sum
        self.size = keep
        self._last_weight, self._last_sum = (
            float(self._weights[keep - 1]),
            float(self._sums[keep - 1]),
        )

    def clear(self) -> None:
        """Forget every observation (the buffers are kept for reuse)."""
        self.size = 0
        self._last_weight = self._last_sum = 0.0

    def cumulative(self) -> tuple[FloatArray, FloatArray]:
        """The running weights and reward sums, W_1..W_n and S_1..S_n (views, not copies)."""
        return self._weights[: self.size], self._sums[: self.size]
