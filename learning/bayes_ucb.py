"""Bayes-UCB: play the arm whose Beta posterior has the highest upper quantile."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from learning.base import FloatArray
from learning.contextual_thompson import ContextualThompsonSampling
from learning.counting import one_hot
from learning.errors import ContextError
from learning.thompson import ThompsonSampling


def upper_quantiles(table: FloatArray, round_number: float) -> FloatArray:
    """Quantile 1 - 1/t of each arm's Beta(alpha, beta); t = `round_number` (1 for the first).

    `table` is the (2, K) array of [alpha; beta] rows.

    >>> upper_quantiles(np.array([[1.0, 3.0], [1.0, 1.0]]), round_number=2).round(3).tolist()
    [0.5, 0.794]
    """
    # Imported here: scipy.special costs about 0.5 s, and the registry imports every policy
    # while a service starts, though few pick this one (after the first call, a dict lookup).
    from scipy.special import betaincinv  # noqa: PLC0415

    level = 1.0 - 1.0 / max(round_number, 1.0)
    return np.asarray(betaincinv(table[0], table[1], level), dtype=np.float64)


def round_number(table: FloatArray, prior: FloatArray) -> float:
    """1 + the (weighted) observations held in `table` beyond its prior."""
    return 1.0 + float(table.sum()) - float(table.shape[1]) * float(prior.sum())


class BayesUCB(ThompsonSampling):
    """Bayes-UCB (Kaufmann, Cappé & Garivier 2012, "On Bayesian upper confidence bounds for
    bandit problems"), with the Beta-Bernoulli posterior of `thompson`::

        play argmax_i  Q(1 - 1/t, Beta(alpha_i, beta_i))

    Q the quantile function and t the (weighted) observation count plus the prior's mass per
    arm (the paper's c = 0 variant, which it recommends in practice). Asymptotically optimal
    like Thompson sampling, but deterministic and with steadier regret across runs; its
    propensity is one-hot (ties go to the lowest index), so its logs do not support
    inverse-propensity evaluation of other policies.

    >>> policy = BayesUCB(["a", "b"], seed=0)
    >>> for _ in range(100):
    ...     arm = policy.select()
    ...     policy.update(arm, 0.9 if arm == "b" else 0.2)
    >>> policy.select(), policy.probabilities()
    ('b', {'a': 0.0, 'b': 1.0})
    """

    choice_is_posterior_draw = False  # chooses by its own rule, not by a posterior draw

    name: ClassVar[str] = "bayes_ucb"
    summary: ClassVar[str] = "Bayes-UCB: upper Beta quantile (deterministic; Kaufmann et al.)"

    def select(self, context: Any = None) -> str:
        """The arm with the highest posterior quantile."""
        if context is not None:
            raise ContextError(f"policy {self.name!r} is not contextual, but got a context")
        return self._arms[self._select(None)]

    def _select(self, _context: FloatArray | None, /) -> int:
        return int(upper_quantiles(self._ab, round_number(self._ab, self._prior)).argmax())

    def _probabilities(self, context: FloatArray | None, /) -> FloatArray:
        return one_hot(self._select(context), len(self._arms))

    def _prob_best(self, context: FloatArray | None, /) -> FloatArray:
        return super()._probabilities(context)


class ContextualBayesUCB(ContextualThompsonSampling):
    """Bayes-UCB per discrete context: `bayes_ucb`'s rule on `contextual_thompson`'s tables.

    Contexts are keyed exactly as in `contextual_thompson` (by their values); t counts the
    observations of the current context only, so each context explores on its own clock.

    >>> import numpy as np
    >>> policy = ContextualBayesUCB(["a", "b"], seed=0, context_dim=2)
    >>> left, right = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    >>> for _ in range(100):
    ...     for x, good in ((left, "a"), (right, "b")):
    ...         arm = policy.select(context=x)
    ...         policy.update(arm, 1.0 if arm == good else 0.0, context=x)
    >>> policy.select(context=left), policy.select(context=right)
    ('a', 'b')
    """

    choice_is_posterior_draw = False  # chooses by its own rule, not by a posterior draw

    name: ClassVar[str] = "contextual_bayes_ucb"
    summary: ClassVar[str] = "Bayes-UCB per discrete (e.g. one-hot) context (deterministic)"
    param_spec: ClassVar[Mapping[str, Any]] = ContextualThompsonSampling.param_spec

    def _select(self, context: FloatArray | None, /) -> int:
        table = self._table(context)
        return int(upper_quantiles(table, round_number(table, self._prior)).argmax())

    def _probabilities(self, context: FloatArray | None, /) -> FloatArray:
        return one_hot(self._select(context), len(self._arms))

    def _prob_best(self, context: FloatArray | None, /) -> FloatArray:
        return super()._probabilities(context)
