"""Thompson sampling per discrete context with a hierarchical prior pooled across contexts.

With many query families and few queries each, a policy per family that starts from a flat
prior spends most of its decisions exploring arms that every other family has already shown to
be poor. Here a family starts from what the other families taught and moves to its own
statistics as they grow.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from learning.base import FloatArray, array_from_state
from learning.bayes_ucb import round_number, upper_quantiles
from learning.contextual import CONTEXT_PARAMS, ContextualPolicy, FrozenMemo
from learning.counting import one_hot
from learning.errors import InvalidParameterError, StateError
from learning.neighbours import NearestContexts
from learning.params import Param
from learning.posterior import beta_prob_best, beta_std

_ROUNDING = 1e-9  # how far below zero a count may be after retractions (float sums drift)
# Posteriors remembered between updates: a decision asks for one context's posterior about 30
# times (`is_cold` per arm, P(best), the draw); past this many contexts the memo starts over.
_MEMO_CONTEXTS = 1024


class PooledThompsonSampling(ContextualPolicy):
    """Beta-Bernoulli Thompson sampling per context, each context's prior pooled from the
    contexts most like it.

    Context k (a kind of query; the engine gives each kind a fixed unit vector, its anchor) holds,
    per arm a, its own weighted successes s_ka and failures f_ka (n_ka = s_ka + f_ka). Each of
    its J_k nearest other contexts N(k) (at most `neighbours`, by cosine) is weighted by how
    alike the two are, a softmax of their cosine c_kj at temperature tau, scaled so that the
    weights sum to J_k::

        w_kj  = J_k exp(c_kj / tau) / sum_i exp(c_ki / tau)             (j, i in N(k))
        S_ka  = sum_j w_kj s_ja,   N_ka = sum_j w_kj n_ja
        mu_ka = (a0 + S_ka) / (a0 + b0 + N_ka)
        v_ka  = min(m, N_ka)
        theta_ka ~ Beta(a0 + v_ka mu_ka + s_ka,  b0 + v_ka (1 - mu_ka) + f_ka)

    and each step plays argmax_a of one draw. With equally alike contexts (one-hot families, or
    tau large) every w_kj is 1 and this is the empirical-Bayes Beta-binomial model with the
    population estimated leave-one-out (Gelman et al., "Bayesian Data Analysis", 3rd ed.,
    section 5.3); with a small tau a new kind's prior is, in effect, that of its nearest kinds,
    so a kind that resembles a known one starts close to where that one is (similarity-weighted
    pooling: Kveton et al. (2021), "Meta-Thompson sampling"; Hong et al. (2022), "Hierarchical
    Bayesian bandits"). A context's own outcomes are never counted twice. The prior is worth
    v_ka <= m pseudo-pulls (`prior_strength`), and its share of the posterior, v / (v + n_ka),
    shrinks as the context's own pulls grow. With no other context (or m = 0) it is exactly
    `contextual_thompson`. m = 4 and tau = 0.05 are documented, not learned (`experiments/
    pooling.py` and "Kinds of query" in `docs/benchmarks.md`): m = 4 cut regret by 21-24 (of
    52-57 from zero) where families resemble each other and cost 1.7 [-0.7, 4.2] where they
    share nothing. The engine learns its path and tool choices with this policy by default.

    Why only the nearest: at tau = 0.05 a context 0.2 less alike weighs e^-4 = 2% as much, so
    the far ones add almost nothing, and weighing them all kept a weight vector over all
    contexts per context (memory quadratic: 800 MB at 10,000). Each context's nearest are kept
    as contexts come (`learning.neighbours`): memory and a new context's cost are linear in
    contexts, a posterior reads `neighbours` rows (docs/benchmarks.md, "Pooling at 10,000
    kinds"). With no more than `neighbours` contexts it is the full pool.

    A pseudo-pull counts as evidence for `is_cold`: an arm that the pool already knows is not
    cold in a new family. At most `max_contexts` contexts are kept (as in `contextual_thompson`).

    >>> import numpy as np
    >>> policy = PooledThompsonSampling(["a", "b"], seed=0, context_dim=4)
    >>> families = np.eye(4)
    >>> for family in families[:3]:  # in every family seen so far, "b" is the better arm
    ...     for _ in range(10):
    ...         policy.update("a", 0.0, context=family); policy.update("b", 1.0, context=family)
    >>> round(policy.prob_best(context=families[3])["b"], 2)  # a new family starts from the pool
    0.99
    >>> flat = PooledThompsonSampling(["a", "b"], seed=0, context_dim=4, prior_strength=0.0)
    >>> round(flat.prob_best(context=families[3])["b"], 2)  # from zero: a coin toss
    0.5
    >>> near = PooledThompsonSampling(["a", "b"], seed=0, context_dim=2)
    >>> for _ in range(10):  # "a" wins near (1, 0); "b" wins far from it, near (0, 1)
    ...     near.update("a", 1.0, context=[1.0, 0.0]); near.update("b", 0.0, context=[1.0, 0.0])
    ...     near.update("a", 0.0, context=[0.0, 1.0]); near.update("b", 1.0, context=[0.0, 1.0])
    >>> round(near.prob_best(context=[0.96, 0.28])["a"], 2)  # a new kind like the first one
    0.99
    """

    choice_is_posterior_draw = True
    # Every count is a sum of weighted observations; the prior is computed from them on demand,
    # so taking an update out also takes it out of the other contexts' priors.
    can_retract: ClassVar[bool] = True

    name: ClassVar[str] = "pooled_thompson"
    summary: ClassVar[str] = (
        "Thompson sampling per discrete context, prior pooled from the most similar contexts"
    )
    param_spec: ClassVar[Mapping[str, Param]] = {
        **CONTEXT_PARAMS,
        "prior_alpha": Param(1.0, low=0.0, low_open=True, doc="a0: flat prior successes per arm"),
        "prior_beta": Param(1.0, low=0.0, low_open=True, doc="b0: flat prior failures per arm"),
        "prior_strength": Param(
            4.0, low=0.0, doc="m: pseudo-pulls a new context takes from the other contexts, at most"
        ),
        "similarity_temperature": Param(
            0.05, low=0.0, low_open=True, doc="tau: how sharply the pool favours similar contexts"
        ),
        "max_contexts": Param(10_000, low=1, integer=True, doc="distinct contexts kept at most"),
        "neighbours": Param(
            32, low=1, integer=True, doc="the nearest contexts a context's prior pools from"
        ),
    }

    def _init_stats(self, arm_count: int, /) -> None:
        self._flat = np.array([self.params["prior_alpha"], self.params["prior_beta"]], dtype=float)
        self._strength = float(self.params["prior_strength"] or 0.0)
        self._temperature = float(self.params["similarity_temperature"] or 1.0)
        # context bytes -> (2, K) [successes; failures] of that context alone (no prior): views
        # of the rows of `_stacked` (capacity, 2, K), in the same order, which the pool reads
        self._counts: dict[bytes, FloatArray] = {}
        self._row_of: dict[bytes, int] = {}
        self._stacked: FloatArray = np.zeros((16, 2, arm_count))
        self._totals: FloatArray = np.zeros((2, arm_count))  # the sum of every context's counts
        # Each stored context's nearest others, and (rows, weights) computed from them: anchors
        # never move, so a context's weights change only when a new context enters its list.
        self._nearest = NearestContexts(self.context_dim, int(self.params["neighbours"] or 1))
        self._pools: dict[int, tuple[npt.NDArray[np.int64], FloatArray]] = {}
        self._keyed: FrozenMemo[bytes] = FrozenMemo()  # frozen contexts' keys
        self._forget_posteriors()

    def _key(self, context: FloatArray | None) -> bytes:
        # Adding 0.0 turns -0.0 into 0.0, so that equal vectors always give equal bytes.
        key = self._keyed.get(context)
        if key is None:
            key = (self._vector(context) + 0.0).tobytes()
            self._keyed.remember(context, key)
        return key

    def posterior(self, context: Any) -> FloatArray:
        """The (2, K) Beta parameters [alpha; beta] of every arm in `context` (see the class),
        read-only: the table the draws and P(best) use, computed once until the counts change."""
        return self._memoised_posterior(self._check_context(context))

    def _pool_weights(
        self, key: bytes, vector: FloatArray
    ) -> tuple[npt.NDArray[np.int64], FloatArray]:
        """The rows of the context's nearest others, and their w_kj (summing to their count)."""
        row = self._row_of.get(key)
        if row is None:  # a context not stored yet: its nearest, computed (not kept)
            return self._weigh(*self._nearest.nearest(vector))
        pool = self._pools.get(row)
        if pool is None:
            pool = self._pools[row] = self._weigh(*self._nearest.neighbours(row))
        return pool

    def _weigh(
        self, rows: npt.NDArray[np.int64], cosines: FloatArray
    ) -> tuple[npt.NDArray[np.int64], FloatArray]:
        if len(rows) == 0:
            return rows, np.zeros(0)
        logits = cosines / self._temperature
        scaled = np.exp(logits - logits.max())
        return rows, len(rows) * scaled / scaled.sum()

    def _posterior(self, context: FloatArray | None, /) -> FloatArray:
        # The formulas of the class docstring, in the same floating-point operations as written
        # plainly (`np.tensordot` is this `np.dot` on the flattened counts; a sum of two rows is
        # their `+`), with the wrappers and temporaries left out: a decision computes two of
        # these (path and tool) after every outcome, and they were a tenth of its engine time.
        vector = self._vector(context)
        key = self._key(context)
        own = self._counts.get(key)
        rows, weights = self._pool_weights(key, vector)
        shape = self._totals.shape
        if len(weights):
            pooled = self._stacked[rows].reshape(len(rows), -1)
            others = np.dot(weights, pooled).reshape(shape)
        else:
            others = np.zeros(shape)
        others_pulls = others[0] + others[1]
        flat = self._flat
        mean = (flat[0] + others[0]) / (flat[0] + flat[1] + others_pulls)
        strength = np.minimum(self._strength, others_pulls)
        prior: FloatArray = np.empty(shape)
        prior[0] = mean
        np.subtract(1.0, mean, out=prior[1])
        prior *= strength
        prior += flat[:, None]
        if own is not None:
            prior += own
        return prior

    def _memoised_posterior(self, context: FloatArray | None, /) -> FloatArray:
        """`_posterior`, computed once per context until the statistics change.

        Why: the posterior of every context depends on the totals of all of them, so each
        `_update`, `_append_arm`, `_delete_arm` and `_stats_from_dict` forgets them all. The
        array handed out is read-only, so that no caller can change what the next one reads.
        """
        key = self._key(context)
        table = self._posteriors.get(key)
        if table is None:
            if len(self._posteriors) >= _MEMO_CONTEXTS:
                self._posteriors.clear()
            table = self._posteriors[key] = self._posterior(context)
            table.flags.writeable = False
        return table

    def _forget_posteriors(self) -> None:
        self._posteriors: dict[bytes, FloatArray] = {}

    def _select(self, context: FloatArray | None, /) -> int:
        gammas = self._rng.standard_gamma(self._memoised_posterior(context))
        return int((gammas[0] / gammas[1]).argmax())

    def _update(
        self, index: int, reward: float, weight: float, context: FloatArray | None, /
    ) -> None:
        key = self._key(context)
        own = self._counts.get(key)
        if own is None:
            if len(self._counts) >= int(self.params["max_contexts"] or 0):
                raise InvalidParameterError(
                    f"policy {self.name!r} already holds max_contexts={len(self._counts)} "
                    "contexts; are the contexts continuous? (use lints or linucb)"
                )
            own = self._add_context(key, self._vector(context), np.zeros_like(self._totals))
        self._forget_posteriors()
        gain = weight * reward
        own[0, index] += gain
        own[1, index] += weight - gain
        self._totals[0, index] += gain
        self._totals[1, index] += weight - gain

    def _add_context(self, key: bytes, vector: FloatArray, counts: FloatArray) -> FloatArray:
        row = len(self._counts)
        if row == len(self._stacked):  # grown by doubling: adding J contexts copies O(J) rows
            grown = np.concatenate((self._stacked, np.zeros_like(self._stacked)))
            self._restack(grown, list(self._counts))
        self._stacked[row] = counts
        self._counts[key] = self._stacked[row]
        self._row_of[key] = row
        for changed in self._nearest.add(vector):
            self._pools.pop(changed, None)
        return self._counts[key]

    def _restack(self, stacked: FloatArray, keys: list[bytes]) -> None:
        """Hold `stacked` (one (2, K) row per key, in order, then spare rows) and each context's
        counts as a view of its row, so that an update in place is what the pool reads. Why:
        stacking the contexts' counts anew for every posterior was a fifth of computing it."""
        self._stacked = stacked
        self._counts = {key: stacked[row] for row, key in enumerate(keys)}
        self._row_of = {key: row for row, key in enumerate(keys)}

    def _probabilities(self, context: FloatArray | None, /) -> FloatArray:
        table = self._memoised_posterior(context)
        return beta_prob_best(table[0], table[1], self._side_rng, self._monte_carlo_draws)

    def _prob_best(self, context: FloatArray | None, /) -> FloatArray:
        return self._probabilities(context)

    def _evidence(self, index: int, context: FloatArray | None, /) -> tuple[float, float]:
        alpha, beta = self._memoised_posterior(context)[:, index]
        return float(alpha + beta - self._flat.sum()), beta_std(float(alpha), float(beta))

    def _cold_flags(self, context: FloatArray | None, /) -> list[bool]:
        # `_evidence` for every arm at once, by the same operations in the same order (so the
        # same floats): one table lookup instead of one per arm.
        alpha, beta = self._memoised_posterior(context)
        pulls = alpha + beta - self._flat.sum()
        total = alpha + beta
        std = np.sqrt(alpha * beta / (total * total * (total + 1.0)))
        cold = (pulls < self._cold_pulls) | (std > self._cold_width)
        return cold.tolist()  # type: ignore[no-any-return]  # a list of Python bools

    def _append_arm(self) -> None:
        self._forget_posteriors()
        added = np.zeros((len(self._stacked), 2, 1))
        self._restack(np.concatenate((self._stacked, added), axis=2), list(self._counts))
        self._totals = np.concatenate((self._totals, np.zeros((2, 1))), axis=1)

    def _delete_arm(self, index: int, /) -> None:
        self._forget_posteriors()
        self._restack(np.delete(self._stacked, index, axis=2), list(self._counts))
        self._totals = np.delete(self._totals, index, axis=1)

    def _stats_to_dict(self) -> dict[str, Any]:
        contexts = list(self._counts)
        return {
            "contexts": [np.frombuffer(key).tolist() for key in contexts],
            "successes": [self._counts[key][0].tolist() for key in contexts],
            "failures": [self._counts[key][1].tolist() for key in contexts],
            # Kept, not re-summed on load: a sum in another order may differ in the last bit,
            # and a rebuilt policy must draw exactly what the original would.
            "totals": self._totals.tolist(),
        }

    def _stats_from_dict(self, stats: Mapping[str, Any], /) -> None:
        contexts = stats.get("contexts")
        if not isinstance(contexts, list):
            raise StateError("state stats 'contexts' must be a list of context vectors")
        count, arms = len(contexts), len(self._arms)
        self._forget_posteriors()
        self._restack(np.zeros((16, 2, arms)), [])
        self._totals = np.zeros((2, arms))
        self._nearest = NearestContexts(self.context_dim, int(self.params["neighbours"] or 1))
        self._pools = {}
        if count == 0:
            return  # (a context's first update creates its counts; the totals start at 0)
        vectors = array_from_state(stats, "contexts", (count, self.context_dim))
        successes = array_from_state(stats, "successes", (count, arms))
        failures = array_from_state(stats, "failures", (count, arms))
        # A count that was added to and retracted from can end a rounding error below zero.
        if (successes < -_ROUNDING).any() or (failures < -_ROUNDING).any():
            raise StateError("state stats 'successes' and 'failures' must be non-negative")
        vectors = vectors + 0.0
        keys = [vector.tobytes() for vector in vectors]
        if len(set(keys)) != count:
            raise StateError("state stats 'contexts' holds the same context twice")
        for vector in vectors:  # row by row, as when added: the same nearest lists
            self._nearest.add(vector)
        self._restack(np.stack((successes, failures), axis=1), keys)
        totals = array_from_state(stats, "totals", (2, arms))
        if not np.allclose(totals, np.stack((successes.sum(axis=0), failures.sum(axis=0)))):
            raise StateError("state stats 'totals' are not the sums of the contexts' counts")
        self._totals = totals


class PooledBayesUCB(PooledThompsonSampling):
    """Bayes-UCB per discrete context on `pooled_thompson`'s pooled posterior::

        play argmax_a  Q(1 - 1/t, Beta(alpha_ka, beta_ka))

    with alpha, beta as in `pooled_thompson` and t = 1 + the context's own pulls + the prior's
    pseudo-pulls (the observations its posterior rests on), so a new family that the pool
    informs is not explored as if it knew nothing. Deterministic, like `contextual_bayes_ucb`
    (Kaufmann, Cappé & Garivier 2012), which it equals when there is no other context or m = 0.

    >>> import numpy as np
    >>> policy = PooledBayesUCB(["a", "b", "c"], seed=0, context_dim=3)
    >>> families = np.eye(3)
    >>> for family in families[:2]:
    ...     for _ in range(10):
    ...         for arm, reward in (("a", 0.0), ("b", 0.0), ("c", 1.0)):
    ...             policy.update(arm, reward, context=family)
    >>> policy.select(context=families[2]), policy.probabilities(context=families[2])["c"]
    ('c', 1.0)
    """

    choice_is_posterior_draw = False  # chooses by its own rule, not by a posterior draw

    name: ClassVar[str] = "pooled_bayes_ucb"
    summary: ClassVar[str] = "Bayes-UCB per discrete context, prior pooled across contexts"

    def _select(self, context: FloatArray | None, /) -> int:
        table = self._memoised_posterior(context)
        return int(upper_quantiles(table, round_number(table, self._flat)).argmax())

    def _probabilities(self, context: FloatArray | None, /) -> FloatArray:
        return one_hot(self._select(context), len(self._arms))

    def _prob_best(self, context: FloatArray | None, /) -> FloatArray:
        return super()._probabilities(context)
