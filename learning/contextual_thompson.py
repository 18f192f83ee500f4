"""Thompson sampling per discrete context: one Beta-Bernoulli posterior per (context, arm)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from learning.base import FloatArray, array_from_state
from learning.contextual import CONTEXT_PARAMS, ContextualPolicy
from learning.errors import InvalidParameterError, StateError
from learning.params import Param
from learning.posterior import beta_prob_best, beta_std


class ContextualThompsonSampling(ContextualPolicy):
    """Beta-Bernoulli Thompson sampling run separately in every discrete context.

    A context is keyed by its exact values: two contexts share statistics if and only if their
    float64 vectors are equal. The engine's feature extractor produces one-hot vectors (one per
    task family), so each family learns its own best arm, and a context never seen before starts
    at the prior Beta(prior_alpha, prior_beta). Continuous contexts would make every step a new
    context: use `lints` or `linucb` for those. At most `max_contexts` contexts are kept; a new
    context beyond that is an `InvalidParameterError` (state unchanged) rather than unbounded
    memory growth. Within a context the rule is Thompson sampling's (see `thompson`).

    >>> import numpy as np
    >>> policy = ContextualThompsonSampling(["a", "b"], seed=0, context_dim=2)
    >>> left, right = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    >>> for _ in range(100):
    ...     for x, good in ((left, "a"), (right, "b")):
    ...         arm = policy.select(context=x)
    ...         policy.update(arm, 1.0 if arm == good else 0.0, context=x)
    >>> policy.select(context=left), policy.select(context=right)
    ('a', 'b')
    """

    choice_is_posterior_draw = True

    name: ClassVar[str] = "contextual_thompson"
    can_retract: ClassVar[bool] = True  # per context, alpha and beta are sums
    summary: ClassVar[str] = "Thompson sampling per discrete (e.g. one-hot) context"
    param_spec: ClassVar[Mapping[str, Param]] = {
        **CONTEXT_PARAMS,
        "prior_alpha": Param(1.0, low=0.0, low_open=True, doc="prior successes per arm"),
        "prior_beta": Param(1.0, low=0.0, low_open=True, doc="prior failures per arm"),
        "max_contexts": Param(10_000, low=1, integer=True, doc="distinct contexts kept at most"),
    }

    def _init_stats(self, arm_count: int, /) -> None:
        self._prior = np.array([self.params["prior_alpha"], self.params["prior_beta"]], dtype=float)
        # context bytes -> (2, K) array of [alpha; beta], exactly as in `thompson`.
        self._tables: dict[bytes, FloatArray] = {}
        self._arm_count = arm_count

    def _key(self, context: FloatArray | None) -> bytes:
        # Adding 0.0 turns -0.0 into 0.0, so that equal vectors always give equal bytes.
        return (self._vector(context) + 0.0).tobytes()

    def _table(self, context: FloatArray | None) -> FloatArray:
        """The posterior of this context (a fresh prior table, not stored, if unseen)."""
        table = self._tables.get(self._key(context))
        if table is None:
            return np.repeat(self._prior[:, None], self._arm_count, axis=1)
        return table

    def _select(self, context: FloatArray | None, /) -> int:
        gammas = self._rng.standard_gamma(self._table(context))
        return int((gammas[0] / gammas[1]).argmax())

    def _update(
        self, index: int, reward: float, weight: float, context: FloatArray | None, /
    ) -> None:
        key = self._key(context)
        table = self._tables.get(key)
        if table is None:
            if len(self._tables) >= int(self.params["max_contexts"] or 0):
                raise InvalidParameterError(
                    f"policy {self.name!r} already holds max_contexts={len(self._tables)} "
                    "contexts; are the contexts continuous? (use lints or linucb)"
                )
            table = self._tables[key] = self._table(context)
        table[0, index] += weight * reward
        table[1, index] += weight * (1.0 - reward)

    def _probabilities(self, context: FloatArray | None, /) -> FloatArray:
        table = self._table(context)
        return beta_prob_best(table[0], table[1], self._side_rng, self._monte_carlo_draws)

    def _prob_best(self, context: FloatArray | None, /) -> FloatArray:
        return self._probabilities(context)

    def _evidence(self, index: int, context: FloatArray | None, /) -> tuple[float, float]:
        alpha, beta = self._table(context)[:, index]
        return float(alpha + beta - self._prior.sum()), beta_std(float(alpha), float(beta))

    def _append_arm(self) -> None:
        for key, table in self._tables.items():
            self._tables[key] = np.concatenate((table, self._prior[:, None]), axis=1)
        self._arm_count += 1

    def _delete_arm(self, index: int, /) -> None:
        for key, table in self._tables.items():
            self._tables[key] = np.delete(table, index, axis=1)
        self._arm_count -= 1

    def _stats_to_dict(self) -> dict[str, Any]:
        contexts = list(self._tables)
        return {
            "contexts": [np.frombuffer(key).tolist() for key in contexts],
            "alpha": [self._tables[key][0].tolist() for key in contexts],
            "beta": [self._tables[key][1].tolist() for key in contexts],
        }

    def _stats_from_dict(self, stats: Mapping[str, Any], /) -> None:
        contexts = stats.get("contexts")
        if not isinstance(contexts, list):
            raise StateError("state stats 'contexts' must be a list of context vectors")
        count, arms = len(contexts), len(self._arms)
        if count == 0:
            self._tables, self._arm_count = {}, arms
            return
        vectors = array_from_state(stats, "contexts", (count, self.context_dim))
        alpha = array_from_state(stats, "alpha", (count, arms))
        beta = array_from_state(stats, "beta", (count, arms))
        if (alpha <= 0).any() or (beta <= 0).any():
            raise StateError("state stats 'alpha' and 'beta' must be positive")
        self._tables = {vectors[i].tobytes(): np.stack((alpha[i], beta[i])) for i in range(count)}
        self._arm_count = arms
