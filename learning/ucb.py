"""UCB1: play the arm with the highest optimistic index mean + c * sqrt(ln t / n)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import numpy as np

from learning.base import COLD_PARAMS, FloatArray
from learning.counting import CountingPolicy, first_untried, one_hot
from learning.params import Param


class UCB1(CountingPolicy):
    """UCB1 (Auer, Cesa-Bianchi & Fischer 2002, "Finite-time analysis of the multiarmed bandit").

    Each arm is played once; then at total (weighted) pull count t the policy plays::

        argmax_i  mean_i + c * sqrt(ln t / n_i)        (c = sqrt(2) is the paper's UCB1)

    Ties go to the lowest index, so the choice is deterministic: its propensity is 1 for the
    chosen arm and 0 elsewhere, which makes UCB logs unusable for inverse-propensity evaluation
    of other policies (use a randomised policy when logs must support that).

    >>> policy = UCB1(["a", "b"], seed=0)
    >>> [policy.select() for _ in range(1)], policy.probabilities()
    (['a'], {'a': 1.0, 'b': 0.0})
    >>> for _ in range(100):
    ...     arm = policy.select()
    ...     policy.update(arm, 0.9 if arm == "b" else 0.1)
    >>> policy.select()
    'b'
    """

    name: ClassVar[str] = "ucb1"
    summary: ClassVar[str] = "UCB1 optimistic index (deterministic; Auer et al. 2002)"
    param_spec: ClassVar[Mapping[str, Param]] = {
        **COLD_PARAMS,
        "exploration": Param(
            float(np.sqrt(2.0)), low=0.0, doc="c, the width multiplier of the bonus"
        ),
    }

    def _select(self, _context: FloatArray | None, /) -> int:
        untried = first_untried(self._pulls)
        if untried is not None:
            return untried
        total = self._pulls.sum()
        bonus = float(self.params["exploration"] or 0.0) * np.sqrt(
            np.log(max(total, 1.0)) / self._pulls
        )
        return int((self._means() + bonus).argmax())

    def _probabilities(self, context: FloatArray | None, /) -> FloatArray:
        return one_hot(self._select(context), len(self._arms))
