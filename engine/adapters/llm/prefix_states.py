"""Saved model states, found again by the longest token prefix they share with a new prompt.

Why: on 2 CPU cores the embedded model's prompt evaluation, not its generation, is most of a
short answer (about 6 ms a prompt token against 13 ms a generated one, and an answer prompt
is 80-150 tokens for a 7-token answer: `docs/benchmarks.md`, issue 25 (f)). Every answer
prompt opens with the same system text, and llama.cpp reuses only what the context last held:
one other call in between (a bare call, the referee, an option score) and the next answer
evaluates its whole prompt again. A state saved when a prompt is about to be cut short, and
restored when a later prompt shares more of it than the live context does, turns the repeated
opening into a copy of a few megabytes (2 ms to restore, 3-4 ms to save, against 0.3 s to
evaluate 55 tokens again).

This module is the bookkeeping only (which state to restore, which to keep, within a byte
budget, least recently used out first); `engine.adapters.llm.llama_runtime` saves and restores.
"""

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

import numpy as np

__all__ = ["MIN_GAIN_TOKENS", "PrefixStates", "SavedState", "shared_prefix"]

State = TypeVar("State")

# A restore costs about what evaluating one prompt token does; below this many tokens gained a
# restore is not worth the copy, and a state that short is not worth keeping.
MIN_GAIN_TOKENS = 16


def shared_prefix(held: Sequence[int] | np.ndarray, tokens: Sequence[int] | np.ndarray) -> int:
    """How many leading tokens `held` and `tokens` have in common.

    >>> shared_prefix([1, 2, 3, 4], [1, 2, 5])
    2
    >>> shared_prefix([1, 2], [1, 2, 3])
    2
    """
    length = min(len(held), len(tokens))
    if length == 0:
        return 0
    differ = np.flatnonzero(np.asarray(held[:length]) != np.asarray(tokens[:length]))
    return int(differ[0]) if differ.size else length


@dataclass(frozen=True)
class SavedState(Generic[State]):
    """A model's state once it had evaluated `tokens`, taking `size` bytes."""

    tokens: tuple[int, ...]
    state: State
    size: int


class PrefixStates(Generic[State]):
    """At most `capacity_bytes` of saved states; the longest shared prefix decides which to use.

    >>> states: PrefixStates[str] = PrefixStates(capacity_bytes=100, min_gain=2)
    >>> states.keep(SavedState((1, 2, 3, 4), "a", size=60))
    >>> states.keep(SavedState((1, 2, 9), "b", size=30))
    >>> states.worth_restoring([1, 2, 3, 7], live=1)
    SavedState(tokens=(1, 2, 3, 4), state='a', size=60)
    >>> states.worth_restoring([1, 2, 3, 7], live=2) is None  # one token more: not worth it
    True
    """

    def __init__(self, capacity_bytes: int, *, min_gain: int = MIN_GAIN_TOKENS) -> None:
        if capacity_bytes < 0 or min_gain < 1:
            raise ValueError("capacity_bytes must be >= 0 and min_gain >= 1")
        self.capacity_bytes = capacity_bytes
        self.min_gain = min_gain
        self._saved: OrderedDict[tuple[int, ...], SavedState[State]] = OrderedDict()
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._saved)

    @property
    def bytes(self) -> int:
        """The bytes the kept states take."""
        return self._bytes

    def worth_keeping(self, held: Sequence[int] | np.ndarray, tokens: Sequence[int]) -> bool:
        """Whether the live state, holding `held`, should be saved before `tokens` cut it: it
        loses at least `min_gain` tokens, and is not already kept as it is."""
        if self.capacity_bytes == 0 or len(held) < self.min_gain:
            return False
        if len(held) - shared_prefix(held, tokens) < self.min_gain:
            return False
        return tuple(int(token) for token in held) not in self._saved

    def keep(self, saved: SavedState[State]) -> None:
        """Keep `saved`, dropping the least recently used states past the budget (a state
        larger than the whole budget is not kept)."""
        if saved.size > self.capacity_bytes:
            return
        old = self._saved.pop(saved.tokens, None)
        if old is not None:
            self._bytes -= old.size
        self._saved[saved.tokens] = saved
        self._bytes += saved.size
        while self._bytes > self.capacity_bytes:
            _, dropped = self._saved.popitem(last=False)
            self._bytes -= dropped.size

    def worth_restoring(self, tokens: Sequence[int], *, live: int) -> SavedState[State] | None:
        """The kept state sharing the longest prefix with `tokens`, if it shares at least
        `min_gain` more tokens than the live context's `live`; it becomes the most recent."""
        best: SavedState[State] | None = None
        longest = live + self.min_gain - 1
        for saved in self._saved.values():
            shared = shared_prefix(saved.tokens, tokens)
            if shared > longest:
                best, longest = saved, shared
        if best is not None:
            self._saved.move_to_end(best.tokens)
        return best
