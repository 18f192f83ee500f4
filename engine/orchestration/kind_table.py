"""The discovered kinds a query may join: each one's profile, its members and its last query.

The kind book (`engine.orchestration.kind_book`) owns one table and changes it only while it
applies the kind log's events, so the table is a function of the log: every process that read the
same events holds the same rows, in the same order (log order, which breaks ties between equal
similarities). A kind leaves the table when it fades (`engine.domain.kinds.fading_kind`); it stays
a kind of the book, whose decisions keep it.
"""

from collections.abc import Sequence

import numpy as np

from engine.domain import kinds as rules
from engine.domain.kinds import Kind

__all__ = ["KindTable"]


class KindTable:
    """Rows of discovered kinds in log order, each with its profile (a unit vector: the mean of
    its first `PROFILE_MEMBERS` members), its members and the seq of its last query's event."""

    def __init__(self, dimension: int) -> None:
        self._dimension = dimension
        self.kinds: list[Kind] = []
        self._profiles = np.zeros((0, dimension))
        self._sums = np.zeros((0, dimension))  # the sums behind the profiles
        self._members: list[int] = []
        self._last_queries: list[int] = []

    def __len__(self) -> int:
        return len(self.kinds)

    def nearest(self, vector: np.ndarray) -> tuple[int, float]:
        """The row whose profile is nearest `vector`, and the cosine (`kinds.nearest_kind`)."""
        return rules.nearest_kind(vector, self._profiles)

    def profiled(self, row: int) -> bool:
        """Whether the row's profile is complete (a further member writes no event)."""
        return self._members[row] >= rules.PROFILE_MEMBERS

    def size(self, row: int) -> int:
        """The row's members: its queries, while fewer than `PROFILE_MEMBERS`."""
        return self._members[row]

    def last_query(self, row: int) -> int:
        return self._last_queries[row]

    def fading(self, *, last_seq: int, fade_after: int) -> int:
        """The row that fades to make room for a new kind, or -1 (`kinds.fading_kind`)."""
        named = [kind.name is not None for kind in self.kinds]
        return rules.fading_kind(
            self._members, self._last_queries, named, last_seq=last_seq, fade_after=fade_after
        )

    def row_of(self, kind_id: str) -> int:
        """The kind's row, or -1 when it is not in the table."""
        return next((row for row, kind in enumerate(self.kinds) if kind.kind_id == kind_id), -1)

    # -- changes, each from one event of the log ---------------------------------------------------

    def add(self, kind: Kind, vector: Sequence[float], seq: int) -> None:
        """A kind created at `seq`; its profile starts from its query's own `vector`."""
        self.kinds.append(kind)
        self._profiles = np.vstack((self._profiles, np.zeros((1, self._dimension))))
        self._sums = np.vstack((self._sums, np.zeros((1, self._dimension))))
        self._members.append(0)
        self._last_queries.append(seq)
        self.add_member(len(self.kinds) - 1, vector, seq)

    def add_member(self, row: int, vector: Sequence[float], seq: int) -> None:
        self._sums[row] += np.asarray(vector, dtype=np.float64)
        self._members[row] += 1
        self._last_queries[row] = seq
        norm = float(np.linalg.norm(self._sums[row]))
        self._profiles[row] = self._sums[row] / norm if norm > 0 else self._sums[row]

    def rename(self, kind: Kind) -> None:
        """The kind's row holds its new record (a name), where it has a row."""
        self.kinds = [kind if k.kind_id == kind.kind_id else k for k in self.kinds]

    def remove(self, row: int) -> Kind:
        """Take the row out (its kind faded); the rows after it move up one."""
        self._profiles = np.delete(self._profiles, row, axis=0)
        self._sums = np.delete(self._sums, row, axis=0)
        del self._members[row], self._last_queries[row]
        return self.kinds.pop(row)
