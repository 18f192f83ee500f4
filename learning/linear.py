"""Shared base of LinUCB and LinTS: a ridge regression per arm, kept as a Cholesky factor."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from scipy.linalg import cho_solve, solve_triangular

from learning.base import FloatArray, array_from_state
from learning.cholesky import cholesky_rank_one_update
from learning.contextual import CONTEXT_PARAMS, ContextualPolicy
from learning.errors import StateError
from learning.params import Param

LINEAR_PARAMS: Mapping[str, Param] = {
    **CONTEXT_PARAMS,
    "ridge": Param(
        1.0, low=0.0, low_open=True, doc="lambda: prior precision, A starts at lambda I"
    ),
}


class LinearPolicy(ContextualPolicy):
    """Per arm k: A_k = lambda I + sum w x x^T (as its Cholesky factor L_k), b_k = sum w r x.

    The estimate is theta_k = A_k^-1 b_k and the width at x is ||L_k^-1 x|| = sqrt(x^T A_k^-1 x).
    An update is one O(d^2) rank-one Cholesky update plus one O(d^2) pair of triangular solves
    for theta_k; nothing is ever inverted.
    """

    param_spec: ClassVar[Mapping[str, Param]] = LINEAR_PARAMS

    def _init_stats(self, arm_count: int, /) -> None:
        dim = self.context_dim
        root = np.sqrt(float(self.params["ridge"] or 1.0))
        self._lower: FloatArray = np.repeat((root * np.eye(dim))[None], arm_count, axis=0)
        self._b: FloatArray = np.zeros((arm_count, dim))
        self._theta: FloatArray = np.zeros((arm_count, dim))
        self._pulls: FloatArray = np.zeros(arm_count)

    def _update(
        self, index: int, reward: float, weight: float, context: FloatArray | None, /
    ) -> None:
        vector = self._vector(context)
        cholesky_rank_one_update(self._lower[index], np.sqrt(weight) * vector)
        self._b[index] += weight * reward * vector
        self._theta[index] = cho_solve((self._lower[index], True), self._b[index])
        self._pulls[index] += weight

    def _estimates(self, vector: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(x . theta_k, ||L_k^-1 x||) for every arm k."""
        widths = np.array(
            [np.linalg.norm(solve_triangular(lower, vector, lower=True)) for lower in self._lower]
        )
        return self._theta @ vector, widths

    def _append_arm(self) -> None:
        root = np.sqrt(float(self.params["ridge"] or 1.0))
        self._lower = np.concatenate((self._lower, (root * np.eye(self.context_dim))[None]))
        self._b = np.concatenate((self._b, np.zeros((1, self.context_dim))))
        self._theta = np.concatenate((self._theta, np.zeros((1, self.context_dim))))
        self._pulls = np.append(self._pulls, 0.0)

    def _delete_arm(self, index: int, /) -> None:
        self._lower = np.delete(self._lower, index, axis=0)
        self._b = np.delete(self._b, index, axis=0)
        self._theta = np.delete(self._theta, index, axis=0)
        self._pulls = np.delete(self._pulls, index)

    def _stats_to_dict(self) -> dict[str, Any]:
        return {
            "cholesky": self._lower.tolist(),
            "b": self._b.tolist(),
            "theta": self._theta.tolist(),
            "pulls": self._pulls.tolist(),
        }

    def _stats_from_dict(self, stats: Mapping[str, Any], /) -> None:
        arms, dim = len(self._arms), self.context_dim
        lower = array_from_state(stats, "cholesky", (arms, dim, dim))
        b = array_from_state(stats, "b", (arms, dim))
        theta = array_from_state(stats, "theta", (arms, dim))
        pulls = array_from_state(stats, "pulls", (arms,))
        diagonals = np.diagonal(lower, axis1=1, axis2=2)
        if (diagonals <= 0).any() or (np.triu(lower, k=1) != 0).any() or (pulls < 0).any():
            raise StateError(
                "state stats 'cholesky' must be lower-triangular with positive diagonal"
            )
        self._lower, self._b, self._theta, self._pulls = lower, b, theta, pulls
