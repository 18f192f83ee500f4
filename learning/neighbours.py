"""The k nearest contexts of each context, kept as contexts are added: linear memory and time.

`pooled_thompson` pools a context's prior from the contexts most like it. Weighting every other
context made each context hold a weight vector over all of them: memory quadratic in contexts
(about 800 MB at 10,000) and every new context cleared them all. With a softmax at temperature
0.05 the weights beyond the nearest few are negligible (a cosine 0.2 lower weighs e^-4 = 2% as
much), so each context keeps only its `k` nearest: memory J (d + 2k), and a posterior reads k
rows, not J.

Adding the J-th context costs one product with the J stored unit vectors (O(J d)): it finds its
own k nearest, and enters the list of every context it is nearer to than that context's k-th.
The lists are a function of the contexts and the order they came in, so a policy rebuilt from
its state (row by row, in the same order) holds the same lists. Ties keep the earlier context.

>>> index = NearestContexts(dimension=2, k=1)
>>> index.add([1.0, 0.0]), index.add([0.0, 1.0]), index.add([0.8, 0.6])
([], [0], [0, 1])
>>> index.neighbours(0)[0].tolist(), index.neighbours(2)[0].tolist()  # rows nearest to each
([2], [0])
>>> index.nearest([0.6, 0.8])[0].tolist()  # a context not stored: its k nearest, computed
[2]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

__all__ = ["NearestContexts"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
_NONE = np.zeros(0, dtype=np.int64)


class NearestContexts:
    """Unit vectors of the contexts, in the order added, and each one's k nearest others."""

    def __init__(self, dimension: int, k: int) -> None:
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        self._k = k
        self._size = 0
        # Grown by doubling, rows [0, size) in use: each context's unit vector, and its list
        # (nearest first; a short list is padded with row -1 at cosine -inf, which sorts last).
        self._units: FloatArray = np.zeros((16, dimension))
        self._rows: IntArray = np.full((16, k), -1, dtype=np.int64)
        self._cosines: FloatArray = np.full((16, k), -np.inf)

    def __len__(self) -> int:
        return self._size

    @property
    def nbytes(self) -> int:
        """The memory its arrays hold (the unit vectors, and the lists)."""
        return int(self._units.nbytes + self._rows.nbytes + self._cosines.nbytes)

    def neighbours(self, row: int) -> tuple[IntArray, FloatArray]:
        """The stored context's nearest other rows (nearest first) and their cosines."""
        rows = self._rows[row]
        length = int(np.count_nonzero(rows >= 0))
        return rows[:length], self._cosines[row, :length]

    def nearest(self, vector: Sequence[float] | FloatArray) -> tuple[IntArray, FloatArray]:
        """The k stored rows nearest to a context not stored, and their cosines."""
        return self._top(self._units[: self._size] @ _unit(vector))

    def add(self, vector: Sequence[float] | FloatArray) -> list[int]:
        """Store a context as the next row; return the earlier rows whose lists it entered
        (whatever a caller derived from their lists is stale)."""
        unit = _unit(vector)
        row = self._size
        cosines = self._units[:row] @ unit
        # the rows it beats (nearer than their k-th; a short list takes any), all at once
        changed = np.flatnonzero(cosines > self._cosines[:row, -1])
        if len(changed):
            self._enter(changed, row, cosines[changed])
        if row == len(self._units):
            self._units = np.concatenate((self._units, np.zeros_like(self._units)))
            self._rows = np.concatenate((self._rows, np.full_like(self._rows, -1)))
            self._cosines = np.concatenate((self._cosines, np.full_like(self._cosines, -np.inf)))
        self._units[row] = unit
        rows, near = self._top(cosines)
        self._rows[row, : len(rows)] = rows
        self._cosines[row, : len(rows)] = near
        self._size += 1
        return changed.tolist()

    def _enter(self, changed: IntArray, new: int, cosines: FloatArray) -> None:
        """Put `new` in each changed row's list: appended last, then a stable sort by cosine,
        so that it comes after any earlier row of equal cosine; the k first are kept."""
        merged_cosines = np.concatenate((self._cosines[changed], cosines[:, None]), axis=1)
        merged_rows = np.concatenate(
            (self._rows[changed], np.full((len(changed), 1), new, dtype=np.int64)), axis=1
        )
        order = np.argsort(-merged_cosines, axis=1, kind="stable")[:, : self._k]
        self._rows[changed] = np.take_along_axis(merged_rows, order, axis=1)
        self._cosines[changed] = np.take_along_axis(merged_cosines, order, axis=1)

    def _top(self, cosines: FloatArray) -> tuple[IntArray, FloatArray]:
        if len(cosines) == 0:
            return _NONE, np.zeros(0)
        if len(cosines) > self._k:
            candidates = np.argpartition(-cosines, self._k - 1)[: self._k]
            # argpartition breaks ties anyhow: take every row tied with the k-th, then the
            # earliest of them, so that the lists depend on the contexts and their order only
            kth = cosines[candidates].min()
            candidates = np.flatnonzero(cosines >= kth)
        else:
            candidates = np.arange(len(cosines))
        order = np.lexsort((candidates, -cosines[candidates]))[: self._k]
        rows = candidates[order].astype(np.int64)
        return rows, cosines[rows]


def _unit(vector: Sequence[float] | FloatArray) -> FloatArray:
    """The context's direction: its vector over its norm (a zero vector as it is)."""
    array = np.asarray(vector, dtype=np.float64)
    norm = float(np.linalg.norm(array))
    return array / norm if norm > 0 else array
