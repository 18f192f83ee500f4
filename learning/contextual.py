"""Shared base of the contextual policies: a context is a finite 1-D vector of `context_dim`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from learning.base import COLD_PARAMS, FloatArray, Policy
from learning.errors import ContextError
from learning.params import Param

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

    # The last frozen context checked (see `_check_context`).
    _checked: FloatArray | None = None

    def _check_context(self, context: Any) -> FloatArray | None:
        """`context_vector` of the context, once per frozen array.

        Why: the engine hands every call of a decision the same frozen array (its kind's
        anchor, 384 numbers), and checking it again took 3 us, some ten times a decision. Only
        an array that owns its numbers and cannot be written is remembered, by identity.
        """
        checked = self._checked
        if checked is not None and context is checked and not checked.flags.writeable:
            return checked
        vector = context_vector(context, self.context_dim, self.name)
        if vector is context and vector.base is None and not vector.flags.writeable:
            self._checked = vector
        return vector

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
