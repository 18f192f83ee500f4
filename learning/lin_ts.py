"""Linear Thompson sampling (LinTS) with disjoint Gaussian posteriors per arm."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from learning.base import FloatArray
from learning.linear import LINEAR_PARAMS, LinearPolicy
from learning.params import Param
from learning.posterior import gaussian_prob_best


class LinTS(LinearPolicy):
    """Linear Thompson sampling (Agrawal & Goyal 2013, "Thompson sampling for contextual bandits
    with linear payoffs"), one ridge posterior per arm.

    Arm k's posterior is theta ~ N(A_k^-1 b_k, v^2 A_k^-1), A_k = lambda I + sum w x x^T,
    b_k = sum w r x. Only the score x . theta matters, and it is N(x . theta_k, v^2 x^T A_k^-1 x),
    so a step draws one normal per arm instead of a d-dimensional vector: the same decision
    distribution at O(K d^2) instead of O(K d^3)::

        play argmax_k  x . theta_k + v * sqrt(x^T A_k^-1 x) * z_k,    z_k ~ N(0, 1)

    The propensity and `prob_best` are Monte Carlo estimates of that same distribution.
    v defaults to 0.5, the standard deviation bound of a reward in [0, 1].

    >>> import numpy as np
    >>> policy = LinTS(["a", "b"], seed=0, context_dim=2)
    >>> left, right = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    >>> for _ in range(100):
    ...     for x, good in ((left, "a"), (right, "b")):
    ...         arm = policy.select(context=x)
    ...         policy.update(arm, 1.0 if arm == good else 0.0, context=x)
    >>> policy.select(context=left), policy.select(context=right)
    ('a', 'b')
    """

    choice_is_posterior_draw = True

    name: ClassVar[str] = "lints"
    summary: ClassVar[str] = "linear Thompson sampling, disjoint Gaussian posteriors per arm"
    param_spec: ClassVar[Mapping[str, Param]] = {
        **LINEAR_PARAMS,
        "scale": Param(0.5, low=0.0, low_open=True, doc="v: posterior standard deviation scale"),
    }

    def _select(self, context: FloatArray | None, /) -> int:
        means, widths = self._estimates(self._vector(context))
        scale = float(self.params["scale"] or 0.0)
        noise = self._rng.standard_normal(means.size)
        return int((means + scale * widths * noise).argmax())

    def _probabilities(self, context: FloatArray | None, /) -> FloatArray:
        means, widths = self._estimates(self._vector(context))
        scale = float(self.params["scale"] or 0.0)
        return gaussian_prob_best(means, scale * widths, self._side_rng(), self._monte_carlo_draws)

    def _prob_best(self, context: FloatArray | None, /) -> FloatArray:
        return self._probabilities(context)

    def _evidence(self, index: int, context: FloatArray | None, /) -> tuple[float, float]:
        _, widths = self._estimates(self._vector(context))
        return float(self._pulls[index]), float(self.params["scale"] or 0.0) * float(widths[index])
