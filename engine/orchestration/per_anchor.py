"""A memo of what is derived from a context (its array, its key), per context object."""

from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

__all__ = ["PerAnchor"]

T = TypeVar("T")


class PerAnchor:
    """What is derived from a context (its array, its key), remembered per context object.

    Why: a decision's context is its kind's anchor, 384 numbers in one tuple, and a decision
    turned that same tuple into an array or a key about fifteen times (the view, the seed draw,
    and each role of each outcome it learns), some 15 microseconds each. Only tuples are
    remembered, by identity (the entry holds the tuple, so its id cannot be reused), since a
    tuple of floats cannot change; a list or an array is derived anew every time. At most
    `size` contexts are kept, then the memo starts over.
    """

    def __init__(self, size: int = 1024) -> None:
        self._size = size
        self._entries: dict[tuple[int, Callable[..., Any]], tuple[object, Any]] = {}

    def derive(self, context: Sequence[float], how: Callable[[Sequence[float]], T]) -> T:
        """`how(context)`, computed once per tuple and `how`."""
        if type(context) is not tuple:
            return how(context)
        slot = (id(context), how)
        entry = self._entries.get(slot)
        if entry is not None and entry[0] is context:
            return cast("T", entry[1])
        if len(self._entries) >= self._size:
            self._entries.clear()
        value = how(context)
        self._entries[slot] = (context, value)
        return value
