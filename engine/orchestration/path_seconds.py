"""What each path costs in seconds, per kind of query: what the path draw charges it
(`engine.domain.pricing.DrawPrice`).

The learner counts a decision's model seconds once, under its kind and the path it played, when
the decision's first evidence for the path role arrives (and takes them out if that evidence
goes), so that a decision with three outcomes counts once, as in the policies. Replay and
checkpoints carry it like the rest of the learner's state, so every replica charges alike.

A kind's own mean is used once the kind has timed the path; before that, the path's mean over
every kind (a new kind's first draws are charged what the path costs elsewhere); a path timed
nowhere is charged nothing, which leaves it to be explored like any other cold arm.
"""

from collections.abc import Hashable, Iterable, Mapping
from typing import Any

__all__ = ["PathSeconds"]


class PathSeconds:
    """Sums and counts of decisions' seconds per (kind key, path), and per path overall."""

    def __init__(self) -> None:
        self._by_kind: dict[Hashable, dict[str, list[float]]] = {}
        self._overall: dict[str, list[float]] = {}

    def add(self, key: Hashable, path: str, seconds: float, sign: int = 1) -> None:
        """Count (sign 1) or uncount (sign -1) one decision's seconds."""
        for tally in (self._by_kind.setdefault(key, {}), self._overall):
            total = tally.setdefault(path, [0.0, 0.0])
            total[0] += sign * seconds
            total[1] += sign
            if total[1] <= 0:
                del tally[path]

    def forget(self, path: str) -> None:
        """Drop a path's seconds everywhere (an archived arm: see `Learner.archive`)."""
        self._overall.pop(path, None)
        for key in [key for key, tallies in self._by_kind.items() if path in tallies]:
            del self._by_kind[key][path]
            if not self._by_kind[key]:  # as if never timed: a replay that skips it has no key
                del self._by_kind[key]

    def means(self, key: Hashable, paths: Iterable[str]) -> dict[str, float]:
        """The mean seconds of each of `paths` for this kind (see the module); timed ones only.

        >>> timed = PathSeconds()
        >>> timed.add("capitals", "direct", 0.5); timed.add("sums", "steps", 9.0)
        >>> timed.means("capitals", ["direct", "steps", "never_run"])
        {'direct': 0.5, 'steps': 9.0}
        """
        own = self._by_kind.get(key, {})
        means = {}
        for path in paths:
            total = own.get(path) or self._overall.get(path)
            if total is not None:
                means[path] = total[0] / total[1]
        return means

    def state(self, key_out: Any) -> dict[str, Any]:
        """JSON-safe, each kind's key written by `key_out`; the overall sums are kept as they
        were added up (rebuilt from the kinds', their floats could differ from a replay's)."""
        kinds = [[key_out(key), _copied(tallies)] for key, tallies in self._by_kind.items()]
        return {"kinds": kinds, "overall": _copied(self._overall)}

    @classmethod
    def restored(cls, state: Mapping[str, Any], key_in: Any) -> "PathSeconds":
        """The tally that `state` wrote."""
        tally = cls()
        tally._by_kind = {key_in(key): _checked(tallies) for key, tallies in state["kinds"]}
        tally._overall = _checked(state["overall"])
        return tally


def _checked(tallies: Any) -> dict[str, list[float]]:
    if not isinstance(tallies, Mapping):
        raise ValueError(f"path seconds must map paths to [seconds, count], got {tallies!r}")
    return {str(path): [float(pair[0]), float(pair[1])] for path, pair in tallies.items()}


def _copied(tallies: Mapping[str, list[float]]) -> dict[str, list[float]]:
    return {path: list(pair) for path, pair in tallies.items()}
