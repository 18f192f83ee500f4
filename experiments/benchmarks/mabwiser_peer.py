"""MABWiser as a benchmark peer: its public API for latency, an exact fast path for regret.

MABWiser is imported lazily: it pulls pandas, joblib and scikit-learn, none of which a ThinkPath
run needs.

Why a fast path: one `partial_fit` call wraps a few additions in argument validation, pandas-style
conversion and a joblib `Parallel` dispatch over every arm (LinUCB also deep-copies every arm's
model), so a single step costs 0.3 to 3 ms here, and 20 seeds x 10,000 steps of it would spend
most of the benchmark's time budget on peer bookkeeping. The fast path calls the very same
MABWiser implementation objects, minus those layers:

- context-free policies: ``_imp.predict`` and ``_imp.partial_fit``, with the joblib dispatch
  replaced by the loop over ``_fit_arm`` that joblib runs anyway when ``n_jobs`` is 1;
- LinUCB: the public ``predict``, and a fit of only the chosen arm's ridge model (the other arms'
  fits are copies that change nothing, and LinUCB draws no random numbers when fitting).

The arithmetic and the random stream are MABWiser's own, so the decisions are identical; unit
tests hold each fast path to the public API's choices step for step. Latency is always timed
through the public API, since that is what a user of MABWiser pays.
"""

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engine.errors import ConfigError

FloatArray = NDArray[np.float64]
CONTEXTUAL = frozenset({"linucb", "lints"})
# LinTS samples with a per-arm generator that the fit deep-copies: no exact shortcut exists.
FAST_PATH_EXACT = frozenset({"thompson", "ucb1", "linucb"})


def _learning_policy(name: str) -> Any:
    from mabwiser.mab import LearningPolicy  # noqa: PLC0415 - heavy, only for the peer rows

    factories: dict[str, Callable[[], Any]] = {
        "thompson": LearningPolicy.ThompsonSampling,
        "ucb1": LearningPolicy.UCB1,
        "linucb": LearningPolicy.LinUCB,
        "lints": LearningPolicy.LinTS,
    }
    if name not in factories:
        raise ConfigError(f"no MABWiser peer named {name!r}; known: {sorted(factories)}")
    return factories[name]()


class MABWiserPolicy:
    """A MABWiser `MAB` driven one step at a time (see the module notes on `fast_path`).

    MABWiser refuses to predict before a fit, so the model is fitted on an empty history first:
    that leaves every arm untrained, exactly as a fresh policy of ours starts.

    MABWiser's UCB1 scores an arm it has never seen at 0 rather than at infinity (it expects a
    `fit` on past data first), so from a cold start it would stick to the first arm that ever
    paid. The adapter therefore plays each unplayed arm once, in order, before asking UCB1: the
    initial round of UCB1 as Auer et al. state it, and what a fair MABWiser user would do.
    """

    def __init__(
        self,
        arms: Sequence[str],
        learning_policy: str,
        seed: int,
        context_dim: int | None,
        *,
        fast_path: bool = False,
    ) -> None:
        from mabwiser.mab import MAB  # noqa: PLC0415 - heavy, only for the peer rows

        if fast_path and learning_policy not in FAST_PATH_EXACT:
            raise ConfigError(
                f"the fast path is only exact for {sorted(FAST_PATH_EXACT)}, "
                f"not {learning_policy!r}"
            )
        self._name = learning_policy
        self._contextual = learning_policy in CONTEXTUAL
        self._fast_path = fast_path
        self._mab = MAB(list(arms), _learning_policy(learning_policy), seed=seed)
        if not self._contextual:
            self._mab.fit([], [])
        elif context_dim is None:
            raise ConfigError(f"MABWiser {learning_policy} needs a context_dim")
        else:
            self._mab.fit([], [], np.zeros((0, context_dim)))
        self._implementation = self._mab._imp
        self._unplayed = list(arms) if learning_policy == "ucb1" else []
        if fast_path and not self._contextual:
            self._implementation._parallel_fit = self._fit_every_arm_in_turn

    def _fit_every_arm_in_turn(
        self, decisions: NDArray[Any], rewards: FloatArray, contexts: FloatArray | None = None
    ) -> None:
        # What joblib.Parallel(n_jobs=1) does in `_parallel_fit`, without its per-call set-up.
        for arm in self._implementation.arms:
            self._implementation._fit_arm(arm, decisions, rewards, contexts)

    def _row(self, context: FloatArray | None) -> FloatArray | None:
        if not self._contextual:
            return None
        if context is None:
            raise ConfigError("a contextual MABWiser policy needs a context on every call")
        return context.reshape(1, -1)

    def select(self, context: FloatArray | None = None) -> str:
        """MABWiser's predict for this context (after UCB1's initial round)."""
        if self._unplayed:
            return self._unplayed[0]
        if self._fast_path and not self._contextual:
            return str(self._implementation.predict(None))
        return str(self._mab.predict(self._row(context)))

    def update(self, arm: str, reward: float, context: FloatArray | None = None) -> None:
        """MABWiser's partial_fit with one observation (or its exact fast equivalent)."""
        if arm in self._unplayed:
            self._unplayed.remove(arm)
        row = self._row(context)
        if not self._fast_path:
            self._mab.partial_fit([arm], [reward], row)
        elif self._contextual:
            self._implementation.arm_to_model[arm].fit(row, np.array([reward]))
            self._implementation._set_arms_as_trained(np.array([arm]), is_partial=True)
        else:
            self._implementation.partial_fit(np.array([arm]), np.array([reward]), None)
