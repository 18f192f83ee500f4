"""KL-UCB: the optimistic index built from the Bernoulli Kullback-Leibler divergence."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import numpy as np

from learning.base import COLD_PARAMS, FloatArray
from learning.counting import CountingPolicy, first_untried, one_hot
from learning.kl import kl_ucb_index
from learning.params import Param


class KLUCB(CountingPolicy):
    """KL-UCB (Garivier & Cappé 2011, "The KL-UCB algorithm for bounded stochastic bandits").

    Each arm is played once; then at total (weighted) pull count t the policy plays::

        argmax_i  max { q in [mean_i, 1] : n_i kl(mean_i, q) <= ln t + c ln ln t }

    with kl the Bernoulli divergence (valid for any rewards in [0, 1]). c = 3 is what the proof
    needs; c = 0, the default, is what the paper recommends in practice. Ties go to the lowest
    index, so the choice and its propensity are deterministic (one-hot).

    >>> policy = KLUCB(["a", "b"], seed=0)
    >>> for _ in range(100):
    ...     arm = policy.select()
    ...     policy.update(arm, 0.9 if arm == "b" else 0.1)
    >>> policy.select(), policy.probabilities()
    ('b', {'a': 0.0, 'b': 1.0})
    """

    name: ClassVar[str] = "klucb"
    summary: ClassVar[str] = "KL-UCB Bernoulli-divergence index (deterministic; Garivier & Cappé)"
    param_spec: ClassVar[Mapping[str, Param]] = {
        **COLD_PARAMS,
        "log_log_factor": Param(0.0, low=0.0, doc="c in the budget ln t + c ln ln t"),
    }

    def _select(self, _context: FloatArray | None, /) -> int:
        untried = first_untried(self._pulls)
        if untried is not None:
            return untried
        log_t = np.log(max(float(self._pulls.sum()), 1.0))
        budget = log_t + float(self.params["log_log_factor"] or 0.0) * np.log(max(log_t, 1.0))
        return int(kl_ucb_index(self._means(), self._pulls, float(budget)).argmax())

    def _probabilities(self, context: FloatArray | None, /) -> FloatArray:
        return one_hot(self._select(context), len(self._arms))
