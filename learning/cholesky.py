"""Rank-one Cholesky updates: keep A = L L^T current in O(d^2) per observation, never re-invert."""

from __future__ import annotations

import math

import numpy as np

from learning.posterior import FloatArray


def cholesky_rank_one_update(lower: FloatArray, vector: FloatArray) -> None:
    """Turn `lower` (L, lower-triangular, A = L L^T) into the factor of A + v v^T, in place.

    The classic sequence of Givens-like rotations (Golub & Van Loan, "Matrix Computations",
    section 6.5.4): O(d^2) and backward stable, unlike Sherman-Morrison on A^-1, whose rounding
    errors accumulate and can break symmetry and positive definiteness over many updates.

    >>> lower = np.eye(2)
    >>> cholesky_rank_one_update(lower, np.array([1.0, 1.0]))
    >>> np.allclose(lower @ lower.T, np.eye(2) + np.outer([1.0, 1.0], [1.0, 1.0]))
    True
    """
    work = vector.astype(np.float64, copy=True)
    size = work.size
    for k in range(size):
        diagonal = lower[k, k]
        radius = math.hypot(diagonal, work[k])
        cosine, sine = radius / diagonal, work[k] / diagonal
        lower[k, k] = radius
        if k + 1 < size:
            column = lower[k + 1 :, k]
            column += sine * work[k + 1 :]
            column /= cosine
            work[k + 1 :] *= cosine
            work[k + 1 :] -= sine * column
