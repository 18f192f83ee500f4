"""Epsilon-greedy: exploit the best empirical mean, explore uniformly with probability epsilon."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import numpy as np

from learning.base import COLD_PARAMS, FloatArray
from learning.counting import CountingPolicy, first_untried, one_hot
from learning.params import Param


class EpsilonGreedy(CountingPolicy):
    """Epsilon-greedy with optional decay (Sutton & Barto 2018, section 2.2; Auer et al. 2002).

    Each arm is played once; then with t the total (weighted) pull count::

        epsilon_t = epsilon / (1 + decay * t)
        with probability epsilon_t play an arm uniformly at random, else argmax_i mean_i

    decay = 0 keeps epsilon constant; decay > 0 makes exploration fade like 1 / t, the rate of
    Auer et al.'s epsilon_n-greedy. The propensity is exact: epsilon_t / K for every arm plus
    1 - epsilon_t for the greedy one (ties go to the lowest index).

    >>> policy = EpsilonGreedy(["a", "b"], seed=0, epsilon=0.2)
    >>> policy.update("a", 0.1)
    >>> policy.update("b", 0.9)
    >>> policy.probabilities()
    {'a': 0.1, 'b': 0.9}
    """

    name: ClassVar[str] = "epsilon_greedy"
    summary: ClassVar[str] = "epsilon-greedy with optional 1/t decay of epsilon"
    param_spec: ClassVar[Mapping[str, Param]] = {
        **COLD_PARAMS,
        "epsilon": Param(0.1, low=0.0, high=1.0, doc="exploration probability at t = 0"),
        "decay": Param(0.0, low=0.0, doc="epsilon_t = epsilon / (1 + decay * t)"),
    }

    def _epsilon(self) -> float:
        epsilon = float(self.params["epsilon"] or 0.0)
        return epsilon / (1.0 + float(self.params["decay"] or 0.0) * float(self._pulls.sum()))

    def _select(self, _context: FloatArray | None, /) -> int:
        untried = first_untried(self._pulls)
        if untried is not None:
            return untried
        # One uniform draw decides explore-or-exploit, then (if exploring) one integer: the
        # stream consumed per step does not depend on the statistics, which keeps seeds stable.
        if self._rng.random() < self._epsilon():
            return int(self._rng.integers(len(self._arms)))
        return int(self._means().argmax())

    def _probabilities(self, _context: FloatArray | None, /) -> FloatArray:
        arm_count = len(self._arms)
        untried = first_untried(self._pulls)
        if untried is not None:
            return one_hot(untried, arm_count)
        epsilon = self._epsilon()
        probabilities = np.full(arm_count, epsilon / arm_count)
        probabilities[int(self._means().argmax())] += 1.0 - epsilon
        return probabilities
