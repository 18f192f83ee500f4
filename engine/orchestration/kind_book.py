"""The kind book: which kinds of query exist in a namespace, and the kind of each new query.

It is the one owner of the namespace's kinds, a cache of the store's kind log (`KindLog`): every
process reads the same log in the same order, so every process knows the same kinds, and a
decision's kind, once stored with it, is never recomputed (`engine.domain.kinds`).

A new kind is appended at the seq after the last one this process has read; when another
process took that seq first, the book reads the log again and assigns the query afresh, so two
replicas that meet one new kind of query at once end with one kind, not two.

A full table makes room by fading a kind that stayed tiny (`engine.domain.kinds.fading_kind`): a
"fade" event in the log, so every process agrees which kinds a query may join.

The embedder is part of the book: see `engine.orchestration.kind_space`.
"""

import logging
import threading
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from engine.domain import kinds as rules
from engine.domain.kinds import Kind, KindEvent, KindMatch
from engine.domain.ports import Embedder, KindLog
from engine.errors import ConfigError, InvalidKindError, StoreError, UnknownKindError
from engine.orchestration.kind_space import (
    embedder_space,
    refusal,
    space_event,
    stated_threshold,
)
from engine.orchestration.kind_table import KindTable

__all__ = ["KindBook", "KindSettings", "embedder_space"]

logger = logging.getLogger(__name__)

# Appending a kind loses to another writer at most this often in a row before the book gives up
# with a clear error (each loss means another kind was created meanwhile: real progress).
_MAX_APPEND_TRIES = 32
_EXAMPLES_KEPT = 3  # examples per kind in `describe`, besides its first query


@dataclass(frozen=True)
class KindSettings:
    threshold: float | None = None  # None: the embedder's stated threshold (`kind_threshold`)
    max_kinds: int = rules.DEFAULT_MAX_KINDS
    max_tasks: int = rules.DEFAULT_MAX_TASKS
    max_faded: int = rules.DEFAULT_MAX_FADED
    fade_after: int = rules.FADE_AFTER


class KindBook:
    """The kinds of one namespace, and the rule that gives each query its kind."""

    def __init__(
        self,
        *,
        log: KindLog,
        namespace: str,
        embedder: Embedder | None,
        dimension: int,
        settings: KindSettings | None = None,
    ) -> None:
        self._log = log
        self._namespace = namespace
        self._embedder = embedder
        self.dimension = dimension
        self._settings = settings or KindSettings()
        self.threshold = stated_threshold(embedder, self._settings.threshold)
        self.space = embedder_space(embedder)
        self._log_space: str | None = None  # the log's, from its first "space" event
        self._log_has_vectors = False
        self._spaces = 0  # "space" events read: discovered ids do not count them
        self._lock = threading.RLock()
        self._kinds: dict[str, Kind] = {}
        # name -> kind id: every kind's name, and its former names (a renamed task's old name
        # still refers to it, so clients that send the old name keep their kind)
        self._by_name: dict[str, str] = {}
        self._anchors: set[tuple[float, ...]] = set()  # every kind's anchor: one kind, one anchor
        self._table = KindTable(dimension)  # the kinds an unnamed query may join, in log order
        self._faded = 0  # kinds faded in the log
        self._last_seq = 0
        self.sync()
        if self._foreign_space():
            logger.error("%s", self._space_refusal())

    # -- reading ---------------------------------------------------------------------------------

    @property
    def kinds(self) -> list[Kind]:
        """Every kind, in the order it was created."""
        with self._lock:
            return list(self._kinds.values())

    def kind(self, kind_id: str) -> Kind:
        with self._lock:
            self._sync_if_unknown(kind_id)
            try:
                return self._kinds[kind_id]
            except KeyError:
                raise UnknownKindError(f"no kind {kind_id!r} in this namespace") from None

    def context_of(self, kind_id: str | None) -> tuple[float, ...] | None:
        """The context the policies learn a kind's decisions under: its anchor."""
        if kind_id is None:
            return None
        with self._lock:
            self._sync_if_unknown(kind_id)
            known = self._kinds.get(kind_id)
            return None if known is None else known.anchor

    # -- the rule --------------------------------------------------------------------------------

    def find(self, query: str, *, task: str | None = None) -> KindMatch:
        """The kind of `query`: the named task's (created on its first query), else the
        discovered kind whose anchor is nearest, if near enough, else a new kind (at
        `max_kinds`, in the slot of a kind that stayed tiny and fades; where none may, the
        nearest kind).

        It reads the kind log first (one indexed read of the events after the last one read:
        a median 0.18 ms on SQLite),
        so that a replica matches against the kinds, names and profiles that every other
        process has written, never against a stale copy: a stale replica would join an older
        kind, or give a renamed task its old name.
        """
        self.sync()
        if task is not None:
            return self._named(_checked_name(task), query)
        if not self._claim_space():
            raise ConfigError(self._space_refusal())
        vector = self._embed(query)
        if not vector.any():  # no embedding model, or a query with no words to embed
            return self._unsorted(query)
        return self._discover(query, vector)

    def _discover(self, query: str, vector: np.ndarray) -> KindMatch:
        """The discovered kind of a query with this embedding: joined, or made (with room made
        by a kind that fades, where the table is full)."""
        made_room = ""  # the kind that faded to make room for this query's, if one did
        for _ in range(_MAX_APPEND_TRIES):
            with self._lock:
                seq = self._last_seq
                index, similarity = self._table.nearest(vector)
                action, row = self._placement(index, similarity)
                if row >= 0:
                    kind = self._table.kinds[row]
                    why = self._joined_why(kind, similarity, near=similarity >= self.threshold)
                    profiled = self._table.profiled(row)
                    fade_why = self._fade_why(row) if action == "fade" else ""
            if action == "fade":  # then, with the room made, assign the query again
                if self._append_fade(seq, kind):
                    made_room = fade_why
                continue
            if action == "join":
                if profiled or self._add_member(seq, kind, vector):
                    return KindMatch(kind, similarity, False, why)
                continue  # another process changed the kinds meanwhile: assign it again
            created = self._append(seq, "discovered", None, vector, query)
            if created is not None:
                why = "a new kind: no known kind is near enough"
                if index >= 0:
                    why += f" (the nearest, cosine {similarity:.2f}, is below {self._threshold})"
                return KindMatch(created, None if index < 0 else similarity, True, why + made_room)
        raise StoreError("could not add a kind: other processes kept adding kinds; try again")

    def _placement(self, index: int, similarity: float) -> tuple[str, int]:
        """What a query whose nearest profile is at row `index` does: ("join", row), ("fade",
        row) to make room for a new kind, or ("create", -1)."""
        if index >= 0 and similarity >= self.threshold:
            return "join", index
        if index < 0 or len(self._table) < self._settings.max_kinds:
            return "create", -1
        fading = -1
        if self._faded < self._settings.max_faded:
            fading = self._table.fading(
                last_seq=self._last_seq, fade_after=self._settings.fade_after
            )
        return ("fade", fading) if fading >= 0 else ("join", index)

    def _joined_why(self, kind: Kind, similarity: float, *, near: bool) -> str:
        like = f"like {kind.example!r} (cosine {similarity:.2f})"
        if near:
            return like
        return (
            f"the most kinds allowed ({self._settings.max_kinds}) exist and none may fade: joined "
            f"the nearest, {like}"
        )

    def _fade_why(self, row: int) -> str:
        kind, size = self._table.kinds[row], self._table.size(row)
        return (
            f"; the most kinds allowed ({self._settings.max_kinds}) exist: kind {kind.kind_id} "
            f"({size} {'query' if size == 1 else 'queries'}, the last at kind log seq "
            f"{self._table.last_query(row)}) stayed tiny and faded to make room"
        )

    def _append_fade(self, seq: int, kind: Kind) -> bool:
        """Write that `kind` fades at `seq + 1`; False when that seq was taken (the book has
        then read the log again)."""
        event = KindEvent(self._namespace, seq + 1, kind.kind_id, "fade", kind.origin, None, None)
        appended = self._log.append_kind_event(event)
        self.sync()
        return appended

    def peek(self, query: str, *, task: str | None = None) -> tuple[float, ...]:
        """The context `query` would be decided under, creating nothing: its kind's anchor, or
        (for a kind not seen yet) the anchor it would get."""
        with self._lock:
            self.sync()
            name = None if task is None else _checked_name(task)
            if name is not None and name in self._by_name:
                return self._kinds[self._by_name[name]].anchor
            # the id a new kind would take, which decides how its anchor is made distinct
            kind_id = f"task:{name}" if name is not None else self._discovered_id(self._last_seq)
            if self._foreign_space():
                if name is None:
                    raise ConfigError(self._space_refusal())
                anchor = rules.placeholder_anchor(kind_id, self.dimension)
                return rules.distinct_anchor(anchor, kind_id, self._anchors)
            vector = self._embed(query)
            if not np.any(vector):
                if name is not None:
                    anchor = rules.placeholder_anchor(kind_id, self.dimension)
                    return rules.distinct_anchor(anchor, kind_id, self._anchors)
                unsorted = self._kinds.get(rules.UNSORTED)
                return (
                    unsorted.anchor
                    if unsorted
                    else rules.placeholder_anchor(rules.UNSORTED, self.dimension)
                )
            if name is None:
                action, row = self._placement(*self._table.nearest(vector))
                if action == "join":
                    return self._table.kinds[row].anchor
                if action == "fade":  # the new kind would come after the "fade" event
                    kind_id = self._discovered_id(self._last_seq + 1)
            return rules.distinct_anchor(rules.round_anchor(vector), kind_id, self._anchors)

    @property
    def _threshold(self) -> str:
        return f"{self.threshold:.2f}"

    def rename(self, kind_id: str, name: str) -> Kind:
        """Give a kind a name (a discovered kind, or a task renamed); it keeps its evidence.

        The name then works as a task name: `decide(query, task=name)` joins this kind. The
        rename is an event in the kind log, so a restart and every replica see it. A former
        name stays an alias of the kind: `decide(query, task=old)` joins the renamed kind (its
        name stays the new one), and no other kind may take the old name.
        """
        name = _checked_name(name)
        for _ in range(_MAX_APPEND_TRIES):
            with self._lock:
                self.sync()
                kind = self.kind(kind_id)
                if kind.faded:
                    raise InvalidKindError(
                        f"kind {kind_id!r} faded (it stayed tiny, and a newer kind took its "
                        "place): it takes no queries, so a name would send it none"
                    )
                holder = self._by_name.get(name)
                if holder is not None and holder != kind_id:
                    held = self._kinds[holder]
                    how = "its former name" if name in held.aliases else "its name"
                    raise InvalidKindError(f"the name {name!r} is taken by kind {holder!r} ({how})")
                if kind.name == name:
                    return kind
                event = KindEvent(
                    self._namespace,
                    self._last_seq + 1,
                    kind_id,
                    "rename",
                    kind.origin,
                    name,
                    None,
                )
            if self._log.append_kind_event(event):
                self.sync()
                return self.kind(kind_id)
        raise StoreError("could not rename the kind: other processes kept changing kinds")

    # -- keeping up with the log -----------------------------------------------------------------

    def sync(self) -> int:
        """Read the kind log's events after the last one read; return how many."""
        with self._lock:
            events = self._log.kind_events_since(self._namespace, self._last_seq)
            for event in events:
                if event.seq != self._last_seq + 1:
                    raise StoreError(
                        f"kind log of {self._namespace!r} jumps from seq {self._last_seq} to "
                        f"{event.seq}"
                    )
                self._apply(event)
                self._last_seq = event.seq
            return len(events)

    def _sync_if_unknown(self, kind_id: str) -> None:
        if kind_id not in self._kinds:
            self.sync()  # created by another process since this one last read the log

    def _apply(self, event: KindEvent) -> None:
        if event.action == "space":
            self._spaces += 1
            if self._log_space is None:  # the first one holds: every later vector is of it
                self._log_space = event.name
            return
        if event.anchor is not None:
            self._log_has_vectors = True
        if event.action in ("member", "fade"):
            self._apply_to_table(event)
            return
        if event.action == "rename":
            self._apply_rename(event.kind_id, event.name)
            return
        self._apply_create(event)

    def _apply_to_table(self, event: KindEvent) -> None:
        """A "member" or "fade" event: a discovered kind's profile grows, or it leaves."""
        row = self._table.row_of(event.kind_id)
        if row < 0:  # never written by this version: a writer appends after what it read
            logger.warning(
                "kind log of %r: seq %d (%s) names kind %r, which no query may join; ignored",
                self._namespace,
                event.seq,
                event.action,
                event.kind_id,
            )
        elif event.action == "member":
            self._table.add_member(row, event.anchor or (), event.seq)
        else:
            faded = self._table.remove(row)
            self._kinds[faded.kind_id] = replace(faded, faded=True)
            self._faded += 1

    def _apply_create(self, event: KindEvent) -> None:
        if event.kind_id in self._kinds:
            # A second "create" of one kind: written by a version that let a renamed task's old
            # name create the task again (and lose its new name). The first create stands, and
            # the old name is an alias of it, as a rename now leaves it.
            logger.warning(
                "kind log of %r: seq %d creates kind %r again; kept the kind as first created",
                self._namespace,
                event.seq,
                event.kind_id,
            )
            return
        anchor = rules.distinct_anchor(
            event.anchor or rules.placeholder_anchor(event.kind_id, self.dimension),
            event.kind_id,
            self._anchors,
        )
        self._anchors.add(anchor)
        kind = Kind(event.kind_id, event.seq, event.origin, event.name, anchor, event.example)
        self._kinds[kind.kind_id] = kind
        if kind.name is not None:
            self._by_name[kind.name] = kind.kind_id
        if kind.origin == "discovered" and event.anchor is not None:
            # the profile starts from the query's own vector, not the anchor made distinct
            self._table.add(kind, event.anchor, event.seq)

    def _apply_rename(self, kind_id: str, name: str | None) -> None:
        """The kind takes `name`; its former name stays an alias that still refers to it."""
        kind = self._kinds[kind_id]
        aliases = kind.aliases
        if kind.name is not None and kind.name != name and kind.name not in aliases:
            aliases = (*aliases, kind.name)
        renamed = replace(kind, name=name, aliases=tuple(a for a in aliases if a != name))
        self._kinds[kind_id] = renamed
        if name is not None:
            self._by_name[name] = kind_id
        self._table.rename(renamed)

    def _add_member(self, seq: int, kind: Kind, vector: np.ndarray) -> bool:
        """Write `vector` into the kind's profile at `seq + 1`; False when that seq was taken
        (the book has then read the log again)."""
        event = KindEvent(
            self._namespace,
            seq + 1,
            kind.kind_id,
            "member",
            kind.origin,
            None,
            rules.round_anchor(vector),
        )
        appended = self._log.append_kind_event(event)
        self.sync()
        return appended

    # -- creating --------------------------------------------------------------------------------

    def _named(self, name: str, query: str) -> KindMatch:
        for _ in range(_MAX_APPEND_TRIES):
            with self._lock:
                self._sync_if_named(name)
                known = self._by_name.get(name)
                if known is not None:
                    kind = self._kinds[known]
                    why = f"the named task {name!r}"
                    if kind.name != name:
                        why += f" (renamed {kind.label!r})"
                    return KindMatch(kind, None, False, why)
                seq = self._last_seq
                tasks = sum(kind.origin == "task" for kind in self._kinds.values())
            if tasks >= self._settings.max_tasks:
                raise InvalidKindError(
                    f"task {name!r} is new, and the most named tasks allowed "
                    f"({self._settings.max_tasks}) exist: send a task that exists (Engine.kinds "
                    "lists them) or leave the task out to have the kind found from the query"
                )
            # A task's anchor is its first query's vector, where that is of the log's space.
            vector = self._embed(query) if self._claim_space() else None
            created = self._append(seq, "task", name, vector, query)
            if created is not None:
                return KindMatch(created, None, True, f"the named task {name!r}, first seen")
        raise StoreError("could not add the task's kind: other processes kept adding kinds")

    def _unsorted(self, query: str) -> KindMatch:
        """The one kind of the queries no embedding tells apart (see `kinds.UNSORTED`)."""
        why = (
            "no embedding model: unnamed queries share one kind (name tasks to tell them apart)"
            if self._embedder is None
            else "the query has no words to compare: the kind of such queries"
        )
        for _ in range(_MAX_APPEND_TRIES):
            with self._lock:
                self._sync_if_unknown(rules.UNSORTED)
                known = self._kinds.get(rules.UNSORTED)
                if known is not None:
                    return KindMatch(known, None, False, why)
                seq = self._last_seq
            created = self._append(seq, "discovered", None, None, query, kind_id=rules.UNSORTED)
            if created is not None:
                return KindMatch(created, None, True, why)
        raise StoreError("could not add a kind: other processes kept adding kinds; try again")

    def _sync_if_named(self, name: str) -> None:
        if name not in self._by_name:
            self.sync()

    def _append(
        self,
        seq: int,
        origin: Any,
        name: str | None,
        anchor: np.ndarray | None,
        query: str,
        *,
        kind_id: str | None = None,
    ) -> Kind | None:
        """Append a new kind at `seq + 1`; None when another process took that seq first (the
        book has then read the log again). A zero anchor is no anchor (a placeholder's)."""
        if kind_id is None:
            kind_id = f"task:{name}" if origin == "task" else self._discovered_id(seq)
        if anchor is not None and not np.any(anchor):
            anchor = None
        event = KindEvent(
            self._namespace,
            seq + 1,
            kind_id,
            "create",
            origin,
            name,
            None if anchor is None else rules.round_anchor(anchor),
            query[: rules.MAX_EXAMPLE_CHARS],
        )
        appended = self._log.append_kind_event(event)
        self.sync()
        return self._kinds[kind_id] if appended else None

    # -- the embedding space ---------------------------------------------------------------------

    def _foreign_space(self) -> bool:
        """Whether the log's vectors come from another embedder than this process's."""
        with self._lock:
            return self._log_space is not None and self._log_space != self.space

    def _space_refusal(self) -> str:
        return refusal(self._namespace, self._log_space, self.space)

    def _claim_space(self) -> bool:
        """True when this process may compare and write vectors in the log: the log's space is
        its embedder's, or the log had none and now records it (appended before any vector)."""
        if self.space is None:
            return True  # no embedder: it writes no vector and compares none
        for _ in range(_MAX_APPEND_TRIES):
            with self._lock:
                if self._log_space is not None:
                    return self._log_space == self.space
                seq, legacy = self._last_seq, self._log_has_vectors
            if legacy:
                logger.warning(
                    "the kind log of %r does not say which embedder its vectors come from "
                    "(written before it was recorded); recording this process's, %r",
                    self._namespace,
                    self.space,
                )
            event = space_event(self._namespace, seq + 1, self.space, self.dimension)
            self._log.append_kind_event(event)
            self.sync()
        raise StoreError("could not record the embedder: other processes kept adding kinds")

    def _discovered_id(self, seq: int) -> str:
        """The id of a discovered kind appended at `seq + 1`: "k" and its seq, less the "space"
        events before it, so that the first kind of a new log is "k1" as before the embedder was
        recorded. Unique: the number grows by at least one from one kind to the next."""
        return f"k{seq + 1 - self._spaces}"

    def _embed(self, query: str) -> np.ndarray:
        if self._embedder is None:
            return np.zeros(self.dimension)
        text = query[: rules.KIND_TEXT_CHARS]
        return np.asarray(self._embedder.embed([text])[0], dtype=np.float64)


def _checked_name(name: object) -> str:
    try:
        return rules.check_task_name(name)
    except ValueError as error:
        raise InvalidKindError(str(error)) from None


def describe_kinds(book: KindBook, sizes: dict[str, int]) -> list[dict[str, Any]]:
    """The kinds as `Engine.snapshot` lists them: id, name, former names, origin, size, example
    and whether it faded."""
    return [
        {
            "kind": kind.kind_id,
            "name": kind.name,
            "aliases": list(kind.aliases),
            "origin": kind.origin,
            "decisions": sizes.get(kind.kind_id, 0),
            "example": kind.example,
            "faded": kind.faded,
        }
        for kind in book.kinds
    ]
