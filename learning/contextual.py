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

    def _check_context(self, context: Any) -> FloatArray | None:
        return context_vector(context, self.context_dim, self.name)

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
