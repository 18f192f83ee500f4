"""One non-contextual policy per distinct context vector: contextual learning from any policy.

`make_policy(name, arms, context_dim=d)` builds this for a policy that takes no context. The
engine's query features are a one-hot family plus a bias, so equal vectors mean "the same kind
of query"; keying a plain policy by the vector gives each kind its own statistics. That is exact
for one-hot features, and it lets any policy, a drift-aware one included, run on contexts beside
the natively contextual ones (LinTS, LinUCB), which need no wrapper.

Sub-policies are created on the first `select` or `update` in a context. Each one's seed is
derived from the keyed policy's root seed and the context, so a policy rebuilt from its state
creates exactly the sub-policies the original would have: the same future, context for context.

>>> from learning import make_policy
>>> policy = make_policy("thompson", ["a", "b"], seed=1, context_dim=2)
>>> math_query, word_query = np.array([1.0, 0.0]), np.array([0.0, 1.0])
>>> for _ in range(60):
...     policy.update("a", 1.0, context=math_query); policy.update("b", 0.0, context=math_query)
...     policy.update("a", 0.0, context=word_query); policy.update("b", 1.0, context=word_query)
>>> policy.select(context=math_query), policy.select(context=word_query)
('a', 'b')
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from learning.base import Explanation, Policy, check_reward, make_bits
from learning.contextual import FrozenMemo, HashedTuple, context_vector
from learning.errors import ContextError, PolicyError, StateError, UnknownArmError
from learning.params import Param, ParamValue

_CONTEXT_DIM = Param(None, low=1, integer=True, doc="length of every context vector")
Key = tuple[float, ...]


class KeyedPolicy:
    """Routes each call to the sub-policy of its context; every sub-policy holds the same arms."""

    is_contextual = True

    def __init__(
        self,
        policy_class: type[Policy],
        arms: Sequence[str],
        *,
        context_dim: Any,
        seed: int | None = None,
        root: int | None = None,
        **params: Any,
    ) -> None:
        if policy_class.is_contextual:
            raise PolicyError(f"policy {policy_class.name!r} is contextual already: use it as is")
        self._class = policy_class
        self._context_dim = int(_CONTEXT_DIM.check("context_dim", context_dim) or 0)
        # Validates the arms and the parameters once, up front; it also answers for contexts
        # that were never seen, without creating (and so without changing) anything.
        self._template = policy_class(arms, seed=None, **params)
        self._base_params = dict(params)
        # Every sub-seed derives from `root`: a given seed, or entropy drawn once and saved.
        self._root = root if root is not None else _root_of(seed)
        self._by_context: dict[Key, Policy] = {}
        self._frozen_keys: FrozenMemo[Key] = FrozenMemo()  # frozen contexts' keys

    @property
    def name(self) -> str:
        return self._class.name

    @property
    def params(self) -> dict[str, ParamValue]:
        return {**self._template.params, "context_dim": self._context_dim}

    @property
    def arms(self) -> list[str]:
        return self._template.arms

    @property
    def contexts(self) -> list[Key]:
        """The contexts seen so far, in the order they first came."""
        return list(self._by_context)

    def sub_policy(self, context: Any) -> Policy:
        """The policy that learns for this context (created if it is new)."""
        key = self._key(context)
        policy = self._by_context.get(key)
        if policy is None:
            policy = self._class(self.arms, seed=self._sub_seed(key), **self._base_params)
            self._by_context[key] = policy
        return policy

    def _peek(self, context: Any) -> Policy:
        """The sub-policy for reading: a new context is answered by its would-be policy, unsaved."""
        key = self._key(context)
        known = self._by_context.get(key)
        if known is not None:
            return known
        return self._class(self.arms, seed=self._sub_seed(key), **self._base_params)

    def _key(self, context: Any) -> Key:
        """The context's numbers as a tuple hashed once (`HashedTuple`; tolist is the cheap way
        to one), made once per frozen array (`FrozenMemo`: three times a decision, 11 us each)."""
        key = self._frozen_keys.get(context)
        if key is None:
            key = HashedTuple(context_vector(context, self._context_dim, self.name).tolist())
            self._frozen_keys.remember(context, key)
        return key

    def initial_rng(self, context: Any) -> dict[str, Any]:
        """The generator state a new sub-policy for `context` starts from (what a replay keeps:
        learning from outcomes draws no random numbers)."""
        return dict(make_bits(self._sub_seed(self._key(context))).state)

    def _sub_seed(self, key: Key) -> int:
        crc = zlib.crc32(np.asarray(key, dtype=np.float64).tobytes())
        return int(np.random.SeedSequence([self._root, crc]).generate_state(1)[0])

    def select(self, context: Any = None) -> str:
        return self.sub_policy(context).select()

    def update(self, arm: str, reward: float, context: Any = None, weight: float = 1.0) -> None:
        # Checked before the sub-policy exists, so a refused update creates nothing.
        self._known(arm)
        check_reward(reward, weight)
        self.sub_policy(context).update(arm, reward, weight=weight)

    @property
    def can_retract(self) -> bool:
        return self._class.can_retract

    def retract(self, arm: str, reward: float, context: Any = None, weight: float = 1.0) -> None:
        """Undo one earlier `update` in this context's sub-policy (see `Policy.retract`)."""
        self._known(arm)
        self.sub_policy(context).retract(arm, reward, weight=weight)

    def probabilities(self, context: Any = None) -> dict[str, float]:
        return self._peek(context).probabilities()

    def prob_best(self, context: Any = None) -> dict[str, float]:
        return self._peek(context).prob_best()

    def explain(self, context: Any = None) -> Explanation:
        return self._peek(context).explain()

    def is_cold(self, arm: str, context: Any = None) -> bool:
        self._known(arm)
        return self._peek(context).is_cold(arm)

    def cold_arms(self, context: Any = None) -> list[str]:
        return self._peek(context).cold_arms()

    def add_arm(self, arm: str) -> None:
        self._template.add_arm(arm)  # raises on a bad or duplicate arm before anything changes
        for policy in self._by_context.values():
            policy.add_arm(arm)

    def remove_arm(self, arm: str) -> None:
        self._template.remove_arm(arm)  # raises on an unknown or the last arm first
        for policy in self._by_context.values():
            policy.remove_arm(arm)

    def _known(self, arm: str) -> None:
        if arm not in self._template.arms:
            raise UnknownArmError(f"unknown arm {arm!r}; policy {self.name!r} has {self.arms!r}")

    def to_dict(self) -> dict[str, Any]:
        """The root seed and every sub-policy's state, keyed by its context (JSON-safe)."""
        template = self._template.to_dict()
        return {
            "format_version": template["format_version"],
            "policy": self.name,
            "keyed_by_context": True,
            "params": self.params,
            "arms": self.arms,
            "rng": {"root": self._root},
            "stats": {
                "contexts": [
                    {"context": list(key), "state": policy.to_dict()}
                    for key, policy in self._by_context.items()
                ]
            },
        }

    @classmethod
    def from_dict(cls, policy_class: type[Policy], state: Mapping[str, Any]) -> KeyedPolicy:
        """Rebuild from `to_dict` output (`load_policy` checks the version and the name first)."""
        params = state.get("params")
        arms = state.get("arms")
        rng = state.get("rng")
        stats = state.get("stats")
        if not isinstance(params, Mapping) or not isinstance(arms, list):
            raise StateError("state 'params' must be a dict and 'arms' a list")
        if not isinstance(rng, Mapping) or not _is_int(rng.get("root")):
            raise StateError("state 'rng' must hold the integer 'root' seed of the sub-policies")
        contexts = stats.get("contexts") if isinstance(stats, Mapping) else None
        if not isinstance(contexts, list):
            raise StateError("state 'stats' must hold the list of 'contexts'")
        settings = dict(params)
        try:
            keyed = cls(policy_class, arms, root=int(rng["root"]), **settings)
        except PolicyError as error:
            raise StateError(f"state does not describe a valid keyed policy: {error}") from error
        for entry in contexts:
            if not isinstance(entry, Mapping) or not isinstance(entry.get("state"), Mapping):
                raise StateError("each context entry needs a 'context' and a 'state'")
            try:
                key = keyed._key(entry.get("context"))
            except ContextError as error:
                raise StateError(f"a saved context is unusable: {error}") from error
            if entry["state"].get("policy") != keyed.name:
                raise StateError(f"the sub-policy of context {list(key)} is not {keyed.name!r}")
            sub = policy_class.from_dict(entry["state"])
            if sub.arms != keyed.arms:
                raise StateError(f"the sub-policy of context {list(key)} has other arms")
            keyed._by_context[key] = sub
        return keyed

    def __repr__(self) -> str:
        return f"KeyedPolicy({self.name!r}, arms={self.arms!r}, contexts={len(self._by_context)})"


def _root_of(seed: int | None) -> int:
    make_bits(seed)  # the same seed check as every policy's
    if seed is not None:
        return seed
    return int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
