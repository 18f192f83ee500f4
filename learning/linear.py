"""Shared base of LinUCB and LinTS: a ridge regression per arm, kept as a square-root factor."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from learning.base import FloatArray, array_from_state
from learning.contextual import CONTEXT_PARAMS, ContextualPolicy
from learning.errors import StateError
from learning.params import Param
from learning.square_root import add_outer_product

LINEAR_PARAMS: Mapping[str, Param] = {
    **CONTEXT_PARAMS,
    "ridge": Param(
        1.0, low=0.0, low_open=True, doc="lambda: prior precision, A starts at lambda I"
    ),
}


class LinearPolicy(ContextualPolicy):
    """Per arm k, a ridge fit: A_k = lambda I + sum w x x^T and b_k = sum w r x.

    A_k is never stored: its inverse is, as a factor G_k with A_k^-1 = G_k^T G_k.
    The estimate is theta_k = A_k^-1 b_k = G_k^T (G_k b_k) and the width at x is
    ||G_k x|| = sqrt(x^T A_k^-1 x). An update is one O(d^2) square-root update of G_k (see
    `learning.square_root`) and an O(d^2) refresh of theta_k; nothing is inverted or solved,
    and a step evaluates every arm at once with one batched matrix-vector product.
    """

    param_spec: ClassVar[Mapping[str, Param]] = LINEAR_PARAMS

    def _fresh_factor(self) -> FloatArray:
        scale: float = 1.0 / math.sqrt(float(self.params["ridge"] or 1.0))
        return np.eye(self.context_dim) * scale

    def _init_stats(self, arm_count: int, /) -> None:
        self._factor: FloatArray = np.repeat(self._fresh_factor()[None], arm_count, axis=0)
        self._b: FloatArray = np.zeros((arm_count, self.context_dim))
        self._theta: FloatArray = np.zeros((arm_count, self.context_dim))
        self._pulls: FloatArray = np.zeros(arm_count)

    def _update(
        self, index: int, reward: float, weight: float, context: FloatArray | None, /
    ) -> None:
        vector = self._vector(context)
        factor = self._factor[index]
        add_outer_product(factor, np.sqrt(weight) * vector)
        self._b[index] += weight * reward * vector
        self._theta[index] = factor.T @ (factor @ self._b[index])
        self._pulls[index] += weight

    def _estimates(self, vector: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(x . theta_k, sqrt(x^T A_k^-1 x)) for every arm k, in one batched product."""
        projected = self._factor @ vector  # (K, d)
        widths = np.sqrt(np.einsum("kd,kd->k", projected, projected))
        return self._theta @ vector, widths

    def _append_arm(self) -> None:
        self._factor = np.concatenate((self._factor, self._fresh_factor()[None]))
        self._b = np.concatenate((self._b, np.zeros((1, self.context_dim))))
        self._theta = np.concatenate((self._theta, np.zeros((1, self.context_dim))))
        self._pulls = np.append(self._pulls, 0.0)

    def _delete_arm(self, index: int, /) -> None:
        self._factor = np.delete(self._factor, index, axis=0)
        self._b = np.delete(self._b, index, axis=0)
        self._theta = np.delete(self._theta, index, axis=0)
        self._pulls = np.delete(self._pulls, index)

    def _stats_to_dict(self) -> dict[str, Any]:
        return {
            "factor": self._factor.tolist(),
            "b": self._b.tolist(),
            "theta": self._theta.tolist(),
            "pulls": self._pulls.tolist(),
        }

    def _stats_from_dict(self, stats: Mapping[str, Any], /) -> None:
        arms, dim = len(self._arms), self.context_dim
        factor = array_from_state(stats, "factor", (arms, dim, dim))
        b = array_from_state(stats, "b", (arms, dim))
        theta = array_from_state(stats, "theta", (arms, dim))
        pulls = array_from_state(stats, "pulls", (arms,))
        if (pulls < 0).any():
            raise StateError("state stats 'pulls' must be non-negative")
        if (np.abs(np.linalg.det(factor)) <= 0).any():
            raise StateError("state stats 'factor' must be invertible (a square root of A^-1)")
        self._factor, self._b, self._theta, self._pulls = factor, b, theta, pulls
