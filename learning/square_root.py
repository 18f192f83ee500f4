"""Potter's square-root update: keep a factor G with A^-1 = G^T G current in O(d^2), no inverse."""

from __future__ import annotations

import math

import numpy as np

from learning.posterior import FloatArray


def add_outer_product(factor: FloatArray, vector: FloatArray) -> None:
    """Turn `factor` G (A^-1 = G^T G) into the factor of (A + v v^T)^-1, in place.

    With p = G v and s = p.p, (A + v v^T)^-1 = G^T (I + p p^T)^-1 G, and (I + p p^T)^-1 is the
    square of the symmetric N = I - tau p p^T with tau = 1 / (r (1 + r)), r = sqrt(1 + s). So
    G <- N G = G - tau p (G^T p)^T: two matrix-vector products and a rank-one correction. The
    product G^T G stays symmetric positive definite by construction, which plain
    Sherman-Morrison updates of A^-1 do not guarantee as rounding errors accumulate.

    Reference: Potter's square-root measurement update (Battin 1964; Bierman 1977,
    "Factorization methods for discrete sequential estimation", chapter II).

    >>> factor = np.eye(2)
    >>> add_outer_product(factor, np.array([1.0, 1.0]))
    >>> np.allclose(factor.T @ factor, np.linalg.inv(np.eye(2) + np.ones((2, 2))))
    True
    """
    projected = factor @ vector
    root = math.sqrt(1.0 + float(projected @ projected))
    tau = 1.0 / (root * (1.0 + root))  # = (1 - 1/r) / s without cancellation for small s
    factor -= np.outer(tau * projected, projected @ factor)
