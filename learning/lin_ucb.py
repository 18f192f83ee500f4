"""LinUCB with disjoint linear models: optimism over a ridge-regression confidence ellipsoid."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from learning.base import FloatArray
from learning.counting import one_hot
from learning.linear import LINEAR_PARAMS, LinearPolicy
from learning.params import Param
from learning.posterior import gaussian_prob_best


class LinUCB(LinearPolicy):
    """LinUCB, disjoint models (Li, Chu, Langford & Schapire 2010, "A contextual-bandit approach
    to personalized news article recommendation", algorithm 1).

    With A_k = lambda I + sum w x x^T and b_k = sum w r x over arm k's observations, it plays::

        argmax_k  x . A_k^-1 b_k + alpha * sqrt(x^T A_k^-1 x)

    A_k^-1 is kept as a square-root factor updated in O(d^2) (see `learning.square_root`). Ties go
    to the lowest index: the propensity is one-hot. `prob_best` treats each arm's score as
    N(x . theta_k, (x^T A_k^-1 x) / 4), the posterior of a ridge fit of rewards of variance 1/4
    (the most a [0, 1] reward can have): a documented approximation.

    >>> import numpy as np
    >>> policy = LinUCB(["a", "b"], seed=0, context_dim=2)
    >>> left, right = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    >>> for _ in range(50):
    ...     for x, good in ((left, "a"), (right, "b")):
    ...         arm = policy.select(context=x)
    ...         policy.update(arm, 1.0 if arm == good else 0.0, context=x)
    >>> policy.select(context=left), policy.select(context=right)
    ('a', 'b')
    """

    name: ClassVar[str] = "linucb"
    summary: ClassVar[str] = "LinUCB, disjoint ridge models per arm (Li et al. 2010)"
    param_spec: ClassVar[Mapping[str, Param]] = {
        **LINEAR_PARAMS,
        "alpha": Param(1.0, low=0.0, doc="width multiplier of the confidence bonus"),
    }

    def _select(self, context: FloatArray | None, /) -> int:
        means, widths = self._estimates(self._vector(context))
        return int((means + float(self.params["alpha"] or 0.0) * widths).argmax())

    def _probabilities(self, context: FloatArray | None, /) -> FloatArray:
        return one_hot(self._select(context), len(self._arms))

    def _prob_best(self, context: FloatArray | None, /) -> FloatArray:
        means, widths = self._estimates(self._vector(context))
        return gaussian_prob_best(means, 0.5 * widths, self._side_rng(), self._monte_carlo_draws)

    def _evidence(self, index: int, context: FloatArray | None, /) -> tuple[float, float]:
        _, widths = self._estimates(self._vector(context))
        return float(self._pulls[index]), 0.5 * float(widths[index])
