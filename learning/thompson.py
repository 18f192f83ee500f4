"""Thompson sampling with a Beta-Bernoulli posterior per arm (rewards in [0, 1])."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from learning.base import COLD_PARAMS, FloatArray, Policy, array_from_state, check_reward
from learning.errors import ContextError, StateError, UnknownArmError
from learning.params import Param
from learning.posterior import beta_prob_best, beta_std


class ThompsonSampling(Policy):
    """Beta-Bernoulli Thompson sampling; a reward r in [0, 1] is a fractional observation.

    Arm i holds the posterior Beta(alpha_i, beta_i), starting at Beta(prior_alpha, prior_beta).
    Each step draws theta_i ~ Beta(alpha_i, beta_i) and plays argmax_i theta_i. A reward r with
    weight w updates::

        alpha_i += w * r        beta_i += w * (1 - r)

    For r in {0, 1} and w = 1 this is exact Bayesian updating; for r in (0, 1) it is the
    deterministic mean of the Bernoulli-trick update of Agrawal & Goyal (2012), with the same
    posterior mean and less noise. The selection probability equals the posterior probability of
    being best, estimated by Monte Carlo from a generator derived from the state.

    References: Thompson (1933); Chapelle & Li (2011) "An empirical evaluation of Thompson
    sampling"; Agrawal & Goyal (2012) "Analysis of Thompson sampling for the multi-armed bandit".

    >>> policy = ThompsonSampling(["a", "b"], seed=1)
    >>> for _ in range(200):
    ...     arm = policy.select()
    ...     policy.update(arm, 1.0 if arm == "b" else 0.0)
    >>> policy.select(), policy.prob_best()["b"] > 0.99
    ('b', True)
    """

    choice_is_posterior_draw = True

    name: ClassVar[str] = "thompson"
    can_retract: ClassVar[bool] = True  # alpha and beta are sums
    summary: ClassVar[str] = "Beta-Bernoulli Thompson sampling (stationary default)"
    param_spec: ClassVar[Mapping[str, Param]] = {
        **COLD_PARAMS,
        "prior_alpha": Param(1.0, low=0.0, low_open=True, doc="prior successes per arm"),
        "prior_beta": Param(1.0, low=0.0, low_open=True, doc="prior failures per arm"),
    }

    def _init_stats(self, arm_count: int, /) -> None:
        # Row 0 holds alpha, row 1 beta: one `standard_gamma` call samples both (see `_select`).
        self._prior = np.array([self.params["prior_alpha"], self.params["prior_beta"]], dtype=float)
        self._bind(np.repeat(self._prior[:, None], arm_count, axis=1))

    def _bind(self, ab: FloatArray) -> None:
        """Hold `ab` and its two rows as views: 1-D indexing is the cheapest scalar update."""
        self._ab: FloatArray = ab
        self._alpha: FloatArray = ab[0]
        self._beta: FloatArray = ab[1]
        # Gamma draws land in this preallocated buffer: no allocation per step for them.
        self._draws: FloatArray = np.empty_like(ab)
        self._draws_alpha: FloatArray = self._draws[0]
        self._draws_beta: FloatArray = self._draws[1]

    # The hot path: `select` and `update` are written out in full (no base-class indirection)
    # because they run once per decision and the benchmark holds them to a few microseconds.
    def select(self, context: Any = None) -> str:
        """Draw one Beta sample per arm and return the arm with the largest."""
        if context is not None:
            raise ContextError(f"policy {self.name!r} is not contextual, but got a context")
        # Gamma(a) / (Gamma(a) + Gamma(b)) ~ Beta(a, b), and x / (x + y) is increasing in x / y,
        # so the argmax of the ratio of the two gamma rows is the argmax of the Beta draws.
        # A numpy integer indexes the list as is: no int() round trip on the hot path.
        self._rng.standard_gamma(self._ab, out=self._draws)
        return self._arms[(self._draws_alpha / self._draws_beta).argmax()]

    def update(self, arm: str, reward: float, context: Any = None, weight: float = 1.0) -> None:
        """Add a (weighted) fractional Bernoulli observation to `arm`'s posterior."""
        index = self._index.get(arm)
        try:  # one combined test on the valid path; NaN fails every comparison
            valid = context is None and 0.0 <= reward <= 1.0 and 0.0 < weight <= 1.0
        except (TypeError, ValueError):
            valid = False
        if index is None or not valid:
            self._checked_index(arm, reward, context, weight)  # raises the precise error
        gain = weight * reward
        self._alpha[index] += gain
        self._beta[index] += weight - gain

    def _checked_index(self, arm: str, reward: float, context: Any, weight: float) -> int:
        """The row of `arm` once the whole update is known valid (cheap scalar checks only)."""
        index = self._index.get(arm)
        if index is None:
            raise UnknownArmError(f"unknown arm {arm!r}; policy {self.name!r} has {self._arms!r}")
        if context is not None:
            raise ContextError(f"policy {self.name!r} is not contextual, but got a context")
        check_reward(reward, weight)
        return index

    def _select(self, _context: FloatArray | None, /) -> int:
        # Gamma(a) / (Gamma(a) + Gamma(b)) ~ Beta(a, b), and x / (x + y) is increasing in x / y,
        # so the argmax of the ratio of the two gamma rows is the argmax of the Beta draws.
        self._rng.standard_gamma(self._ab, out=self._draws)
        return int((self._draws_alpha / self._draws_beta).argmax())

    def _update(
        self, index: int, reward: float, weight: float, _context: FloatArray | None, /
    ) -> None:
        self._alpha[index] += weight * reward
        self._beta[index] += weight - weight * reward

    def _probabilities(self, _context: FloatArray | None, /) -> FloatArray:
        return beta_prob_best(self._ab[0], self._ab[1], self._side_rng, self._monte_carlo_draws)

    def _prob_best(self, context: FloatArray | None, /) -> FloatArray:
        return self._probabilities(context)

    def _evidence(self, index: int, _context: FloatArray | None, /) -> tuple[float, float]:
        alpha, beta = self._ab[:, index]
        pulls = float(alpha + beta - self._prior.sum())
        return pulls, beta_std(float(alpha), float(beta))

    def _append_arm(self) -> None:
        self._bind(np.concatenate((self._ab, self._prior[:, None]), axis=1))

    def _delete_arm(self, index: int, /) -> None:
        self._bind(np.delete(self._ab, index, axis=1))

    def _stats_to_dict(self) -> dict[str, Any]:
        return {"alpha": self._ab[0].tolist(), "beta": self._ab[1].tolist()}

    def _stats_from_dict(self, stats: Mapping[str, Any], /) -> None:
        shape = (len(self._arms),)
        alpha = array_from_state(stats, "alpha", shape)
        beta = array_from_state(stats, "beta", shape)
        if (alpha <= 0).any() or (beta <= 0).any():
            raise StateError("state stats 'alpha' and 'beta' must be positive")
        self._bind(np.stack((alpha, beta)))
