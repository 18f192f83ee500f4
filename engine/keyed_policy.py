"""One non-contextual policy per distinct context vector: contextual learning from any policy.

The query features are a one-hot family plus a bias (`engine.core.features`), so equal vectors mean
"the same kind of query". Keying a plain policy by the vector gives each kind its own statistics,
which is exact for one-hot features and lets any policy (a drift-aware one included) become
contextual. A learning-core contextual policy (LinTS, LinUCB) needs no wrapper and is used as is.
"""

import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from engine.core.learner import PolicyLike
from engine.errors import ContextError

# (arms, seed) -> a fresh non-contextual policy
BasePolicyFactory = Callable[[list[str], int | None], PolicyLike]


class KeyedPolicy:
    """Routes each call to the sub-policy of its context; arms are shared by all sub-policies.

    >>> from learning import make_policy
    >>> policy = KeyedPolicy(lambda arms, seed: make_policy("thompson", arms, seed=seed),
    ...                      ["a", "b"], context_dim=2, seed=1)
    >>> math_query, word_query = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    >>> for _ in range(60):
    ...     policy.update("a", 1.0, context=math_query); policy.update("b", 0.0, context=math_query)
    ...     policy.update("a", 0.0, context=word_query); policy.update("b", 1.0, context=word_query)
    >>> policy.select(context=math_query), policy.select(context=word_query)
    ('a', 'b')
    """

    is_contextual = True

    def __init__(
        self,
        factory: BasePolicyFactory,
        arms: Sequence[str],
        *,
        context_dim: int,
        seed: int | None = None,
    ) -> None:
        self._factory = factory
        self._arms = list(arms)
        self._context_dim = context_dim
        self._seed = seed
        self._template = factory(self._arms, seed)  # validates arms and parameters up front
        self._by_context: dict[tuple[float, ...], PolicyLike] = {}

    @property
    def arms(self) -> list[str]:
        return list(self._arms)

    def _policy(self, context: np.ndarray | None) -> PolicyLike:
        if context is None:
            raise ContextError("this policy is contextual: it needs the query's features")
        vector = np.asarray(context, dtype=float)
        if vector.shape != (self._context_dim,):
            raise ContextError(
                f"context must have shape ({self._context_dim},), got {vector.shape}"
            )
        key = tuple(float(value) for value in vector)
        policy = self._by_context.get(key)
        if policy is None:
            policy = self._factory(self._arms, self._sub_seed(key))
            self._by_context[key] = policy
        return policy

    def _sub_seed(self, key: tuple[float, ...]) -> int | None:
        # Derived from the seed and the context, so a replay builds identical sub-policies.
        if self._seed is None:
            return None
        crc = zlib.crc32(np.asarray(key).tobytes())
        return int(np.random.SeedSequence([self._seed, crc]).generate_state(1)[0])

    def select(self, context: np.ndarray | None = None) -> str:
        return self._policy(context).select()

    def update(
        self, arm: str, reward: float, context: np.ndarray | None = None, weight: float = 1.0
    ) -> None:
        self._policy(context).update(arm, reward, weight=weight)

    def probabilities(self, context: np.ndarray | None = None) -> dict[str, float]:
        return self._policy(context).probabilities()

    def prob_best(self, context: np.ndarray | None = None) -> dict[str, float]:
        return self._policy(context).prob_best()

    def is_cold(self, arm: str, context: np.ndarray | None = None) -> bool:
        return self._policy(context).is_cold(arm)

    def add_arm(self, arm: str) -> None:
        self._template.add_arm(arm)  # raises on a duplicate before anything changes
        for policy in self._by_context.values():
            policy.add_arm(arm)
        self._arms.append(arm)

    def remove_arm(self, arm: str) -> None:
        self._template.remove_arm(arm)
        for policy in self._by_context.values():
            policy.remove_arm(arm)
        self._arms.remove(arm)

    def to_dict(self) -> dict[str, Any]:
        """Every sub-policy's state, keyed by its context (JSON-safe).

        "base" is a fresh sub-policy's state: it names the policy and its parameters, which is
        what a checkpoint's configuration fingerprint needs.
        """
        return {
            "keyed_by_context": True,
            "base": self._template.to_dict(),
            "seed": self._seed,
            "arms": list(self._arms),
            "contexts": [
                {"context": list(key), "state": policy.to_dict()}
                for key, policy in self._by_context.items()
            ],
        }

    def restore_contexts(
        self, state: Mapping[str, Any], load: Callable[[Mapping[str, Any]], PolicyLike]
    ) -> None:
        """Take over the arms and sub-policies of `to_dict()` output; `load` rebuilds each one.

        A sub-policy keeps the random state it would have had after a replay of the log (its
        seed's), not the saver's: replay only updates, and updates draw no random numbers, so a
        restored engine decides as one that replayed the whole log would.
        """
        arms, contexts = state.get("arms"), state.get("contexts")
        if not isinstance(arms, list) or not isinstance(contexts, list):
            raise ContextError("a keyed policy state needs 'arms' and 'contexts' lists")
        by_context: dict[tuple[float, ...], PolicyLike] = {}
        for entry in contexts:
            key = tuple(float(value) for value in entry["context"])
            if len(key) != self._context_dim:
                raise ContextError(
                    f"a saved context has {len(key)} features, this policy takes "
                    f"{self._context_dim}"
                )
            fresh = self._factory(list(entry["state"]["arms"]), self._sub_seed(key))
            by_context[key] = load({**entry["state"], "rng": fresh.to_dict()["rng"]})
        template = self._factory(list(arms), self._seed)
        self._template, self._arms, self._by_context = template, list(arms), by_context
