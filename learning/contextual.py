"""Shared base of the contextual policies: a context is a finite 1-D vector of `context_dim`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np

from learning.base import COLD_PARAMS, FloatArray, Policy
from learning.errors import ContextError
from learning.params import Param

T = TypeVar("T")

CONTEXT_PARAMS: Mapping[str, Param] = {
    **COLD_PARAMS,
    "context_dim": Param(None, low=1, integer=True, doc="length of every context vector"),
}


class ContextualPolicy(Policy):
    """A policy whose every call takes a context: a finite 1-D numpy array of `context_dim`."""

    is_contextual: ClassVar[bool] = True
    param_spec: ClassVar[Mapping[str, Param]] = CONTEXT_PARAMS

    @property
    def context_dim(self) -> int:
        """The length every context must have."""
        return int(self.params["context_dim"] or 0)

    def __init__(self, arms: Sequence[str], seed: int | None = None, **params: Any) -> None:
        self._checked: FrozenMemo[FloatArray] = FrozenMemo()
        super().__init__(arms, seed, **params)

    def _check_context(self, context: Any) -> FloatArray | None:
        """`context_vector` of the context, once per frozen array (`FrozenMemo`)."""
        checked = self._checked.get(context)
        if checked is None:
            checked = context_vector(context, self.context_dim, self.name)
            self._checked.remember(context, checked)
        return checked

    @staticmethod
    def _vector(context: FloatArray | None) -> FloatArray:
        """The validated context (the base class guarantees it is present for these policies)."""
        if context is None:  # unreachable after _check_context; kept for the type checker
            raise ContextError("a context is required")
        return context


def context_vector(context: Any, dim: int, policy: str) -> FloatArray:
    """`context` as a finite float vector of shape (dim,), or `ContextError` saying what is off.

    >>> context_vector([1, 0], 2, "lints").tolist()
    [1.0, 0.0]
    """
    if context is None:
        raise ContextError(f"policy {policy!r} needs a context of shape ({dim},)")
    try:
        vector = np.asarray(context, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ContextError(f"context is not a numeric vector: {error}") from error
    if vector.shape != (dim,):
        raise ContextError(f"context must have shape ({dim},), got {vector.shape}")
    if not np.isfinite(vector).all():
        raise ContextError("context holds NaN or infinite values")
    return vector


class HashedTuple(tuple[float, ...]):
    """A context's numbers as a tuple that is hashed once, not at every dict lookup.

    Why: a kind's anchor is 384 numbers, a tuple hashes all of them each time it is looked up
    (1.5-3 us), and a decision looks its kind up about ten times (the seed's sub-policy, its
    recent rewards, its paths' seconds). Equal to, and hashed as, the plain tuple of its numbers.

    >>> key = HashedTuple([0.5, 1.0])
    >>> key == (0.5, 1.0), hash(key) == hash((0.5, 1.0)), {(0.5, 1.0): "kind"}[key]
    (True, True, 'kind')
    """

    _hash: int

    def __new__(cls, numbers: Iterable[float]) -> HashedTuple:
        key = super().__new__(cls, numbers)
        key._hash = tuple.__hash__(key)
        return key

    def __hash__(self) -> int:
        return self._hash


class FrozenMemo(Generic[T]):
    """What was derived from each frozen context array asked about, while it is that array.

    Why: the engine hands every call of a decision the same frozen array (its kind's anchor, 384
    numbers), and checking it or making its key again took 3-11 us a time, some fifteen times a
    decision; decisions of different kinds take turns, so only the last array is not enough.
    Only an array that owns its numbers and cannot be written is remembered, by identity (the
    entry holds it, so its id cannot be reused): any other may change under it. At most `size`
    arrays are kept, then the memo starts over.

    >>> memo = FrozenMemo()
    >>> anchor, other = np.zeros(3), np.ones(3)
    >>> anchor.flags.writeable = other.flags.writeable = False
    >>> memo.remember(anchor, "key"); memo.remember(other, "other")
    >>> memo.get(anchor), memo.get(other), memo.get(np.zeros(3))
    ('key', 'other', None)
    """

    def __init__(self, size: int = 256) -> None:
        self._size = size
        self._entries: dict[int, tuple[np.ndarray, T]] = {}

    def get(self, context: object) -> T | None:
        """The value remembered for `context`, or None."""
        entry = self._entries.get(id(context))
        if entry is not None and entry[0] is context and not entry[0].flags.writeable:
            return entry[1]
        return None

    def remember(self, context: object, value: T) -> None:
        """Remember `value` for `context`, if it is a frozen array that owns its numbers."""
        if isinstance(context, np.ndarray) and context.base is None and not context.flags.writeable:
            if len(self._entries) >= self._size:
                self._entries.clear()
            self._entries[id(context)] = (context, value)
