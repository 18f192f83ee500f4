"""Kinds of query: a task the client names, or a kind found from the query's embedding.

The policies learn per kind of query. A kind is learned state like any other: it is created once,
by one event in the store's kind log, and never recomputed. Its *anchor* is a unit vector fixed
at creation (the embedding of its first query), and it is the context every policy sees for the
kind's decisions:

- one kind, one anchor: no two kinds of a namespace hold the same anchor (`distinct_anchor`), so
  a policy keyed by the vector learns per kind, by the kind's identity. Two kinds whose first
  queries embed alike (two named tasks that share a long preamble; a task and a discovered kind
  made by the same query) would otherwise hold one vector and learn as one; the later one's
  anchor is moved a thousandth of its length off, in a direction fixed by its id. They still
  pool through their cosine (about 1), which is pooling on purpose: a prior worth at most a few
  pseudo-pulls (`learning.pooled_thompson`), never each other's outcomes;
- the cosine between two anchors says how alike two kinds are, so `pooled_thompson` pools a new
  kind's prior from its nearest kinds (`learning.pooled_thompson`);
- a linear policy (LinTS, LinUCB) learns from the anchor as a feature vector.

A query joins the kind whose *profile* is most similar when the cosine reaches `threshold`, else
it starts a new kind; at `max_kinds` it takes the slot of a kind that stayed tiny (`fading_kind`:
the kind *fades*, by a "fade" event in the log), or, where none may fade, joins its nearest kind
whatever the similarity (the trace says so), so the policies' state stays bounded. A kind's
profile is the mean of its first `PROFILE_MEMBERS` members' vectors, each written to the kind log
as a "member" event.

Why the anchor and the profile are written to the log and never move after: a running centroid
over every query would differ between replicas that saw queries in another order; the log is
read by every process in one order, so every process knows the same kinds and profiles, and a
decision's kind, stored with it, is the same wherever it is read. Why a profile of the first
few members, not the first query alone: on the development families (docs/benchmarks.md, "Kinds
of query") matching the first query alone reached an adjusted Rand index of 0.80 against the
true family at its best threshold, and the mean of the first eight 0.87.

This module is pure: it knows vectors and kinds, never the embedding model (a port).

>>> kind = discovered_kind(1, (3.0, 4.0), "What is 2 + 2?")
>>> kind.kind_id, kind.anchor
('k1', (0.6, 0.8))
"""

import re
import zlib
from collections.abc import Container, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

__all__ = [
    "DEFAULT_KIND_THRESHOLD",
    "DEFAULT_MAX_FADED",
    "DEFAULT_MAX_KINDS",
    "DEFAULT_MAX_TASKS",
    "FADE_AFTER",
    "FALLBACK_DIMENSION",
    "KIND_TEXT_CHARS",
    "PROFILE_MEMBERS",
    "SPACE",
    "TINY_MEMBERS",
    "UNSORTED",
    "Kind",
    "KindEvent",
    "KindMatch",
    "check_task_name",
    "discovered_kind",
    "distinct_anchor",
    "fading_kind",
    "nearest_kind",
    "placeholder_anchor",
    "round_anchor",
]

# Chosen on the development families (docs/benchmarks.md, "Kinds of query"); a setting.
DEFAULT_KIND_THRESHOLD = 0.45
# A kind is matched by the mean of its first members' vectors (its profile), so one odd first
# query does not decide what joins it; after this many members the profile stays fixed.
PROFILE_MEMBERS = 8
# A query's kind is found from its first characters: the opening of a question says what kind
# it is (its form, a task's prefix), the rest is the instance. On the development families the
# first 120 characters cost 0.02 in adjusted Rand index (0.85 against 0.87 for whole queries)
# and took the median time to embed a query from 11 to 9 ms (docs/benchmarks.md, "Kinds of
# query"); the embedding's cost grows with the text's length.
KIND_TEXT_CHARS = 120
DEFAULT_MAX_KINDS = 256
# Named tasks are bounded like discovered kinds: a client may name any task, so without a bound
# every new name grew the policies' state (28 MB per 1,000 names). At the bound a new name is
# refused (`InvalidKindError`); the tasks that exist, and their former names, go on.
DEFAULT_MAX_TASKS = 256
# A discovered kind that stays tiny fades, so that one odd query long ago does not hold a slot for
# good (`fading_kind`). Tiny: at most this many queries. Every query of a kind with fewer than
# `PROFILE_MEMBERS` members is a "member" event, so a tiny kind's size and its last query are both
# read from the kind log alone, and every replica finds the same kind to fade.
TINY_MEMBERS = 2
# ... and stale: its last query is not among the log's latest `FADE_AFTER` events, so a kind just
# made has that long to grow before a newer one may take its slot (an unending stream of new
# kinds of query turns over only the tiny kinds, never the ones that grew).
FADE_AFTER = 32
# A faded kind's learning stays where it was (its decisions keep their kind, its anchor stays the
# context of their outcomes), so every faded kind keeps its context in the policies, which hold at
# most 10,000. At most this many kinds fade in a namespace; then a query at `max_kinds` joins its
# nearest kind, as before fading existed. With the other bounds: at most 256 + 1,024 + 256 + 1
# contexts a namespace.
DEFAULT_MAX_FADED = 1024
# The context size when no embedding model is installed: MiniLM's, so that installing the model
# later changes no policy shape (the checkpoints' fingerprint still tells the two apart).
FALLBACK_DIMENSION = 384
# The kind id of a log's "space" event: the embedder every vector of the log comes from.
SPACE = "space"
# The one kind that unnamed queries share when there is no embedding model to tell them apart.
UNSORTED = "unsorted"
# Anchors are kept to 6 decimals: the embeddings are float32 (7 digits) and the anchor is stored
# in every checkpoint of a policy that keys by it, so its text form stays short and exact.
_ANCHOR_DECIMALS = 6
# A task name is a slug like a template's id (`templates.model.SLUG`), at most 64 characters.
_TASK_NAME = re.compile(r"[a-z0-9]+(?:[_-][a-z0-9]+)*")
MAX_TASK_NAME_CHARS = 64
MAX_EXAMPLE_CHARS = 200  # of a kind's first query, kept as its example
# How far a kind's anchor moves off an earlier kind's equal anchor (`distinct_anchor`): far enough
# to survive the six decimals, near enough that the two stay alike (cosine 1 - 5e-7).
_NUDGE = 1e-3

Vector = tuple[float, ...]


@dataclass(frozen=True, repr=False)
class Kind:
    """One kind of query: its id, where it came from, its name (if any) and its fixed anchor."""

    kind_id: str  # "k<seq>" for a discovered kind, "task:<name>" for a named task
    seq: int  # its place in the namespace's kind log
    origin: Literal["task", "discovered"]
    name: str | None  # a named task's name, or the name a user gave a discovered kind
    anchor: Vector  # the context its decisions learn under: no other kind of the namespace has it
    example: str  # the query that created it
    aliases: tuple[str, ...] = ()  # its former names, which still refer to it (`KindBook.rename`)
    faded: bool = False  # it stayed tiny and gave its slot to a newer kind (`fading_kind`)

    @property
    def label(self) -> str:
        """What a person reads: its name, else its id."""
        return self.name or self.kind_id

    def __repr__(self) -> str:
        return f"Kind(kind_id={self.kind_id!r}, ...)"


@dataclass(frozen=True)
class KindEvent:
    """One entry of a namespace's kind log: a kind created, a kind (re)named, a member of a
    kind's profile, a kind faded (`fading_kind`), or the embedding space of the log's vectors
    ("space": `name` holds the embedder's id and version, `kind_id` is `SPACE`; see
    `engine.orchestration.kind_book`).

    The log is append-only and ordered by `seq`; a writer appends at the seq after the last one it
    has read, and the store refuses a seq already taken, so two replicas creating kinds at once
    agree on one order (the loser reads the winner's kind and assigns its query again).
    """

    namespace: str
    seq: int
    kind_id: str
    action: Literal["create", "rename", "member", "fade", "space"]
    origin: Literal["task", "discovered"]
    name: str | None
    anchor: Vector | None  # "create": the kind's anchor; "member": the joining query's vector
    example: str = ""


@dataclass(frozen=True)
class KindMatch:
    """A query's kind, and why: the similarity to the kind's anchor, and whether it is new."""

    kind: Kind
    similarity: float | None  # None for a named task, or with no embedding model
    new: bool
    why: str


def check_task_name(name: object) -> str:
    """A task name as given, or ValueError saying what is wrong with it.

    >>> check_task_name("ticket-triage")
    'ticket-triage'
    >>> check_task_name("Ticket Triage")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: task name 'Ticket Triage' is not a slug: ... (the 'T' at position 1 is not allowed)
    """
    if not isinstance(name, str):
        raise ValueError(f"task name must be a string, got {type(name).__name__}")
    if not name or len(name) > MAX_TASK_NAME_CHARS:
        raise ValueError(f"task name must be 1 to {MAX_TASK_NAME_CHARS} characters long")
    if _TASK_NAME.fullmatch(name) is None:
        bad = next(
            (
                f" (the {char!r} at position {position} is not allowed)"
                for position, char in enumerate(name, start=1)
                if not (char.isascii() and (char.islower() or char.isdigit() or char in "_-"))
            ),
            " (a '_' or '-' joins two letters or digits, one at a time)",
        )
        raise ValueError(
            f"task name {name!r} is not a slug: use lowercase letters and digits joined by "
            f"single '_' or '-'{bad}"
        )
    return name


def round_anchor(vector: npt.ArrayLike) -> Vector:
    """A unit vector as an anchor: normalised, then kept to six decimals.

    >>> round_anchor([3.0, 4.0])
    (0.6, 0.8)
    """
    array = np.asarray(vector, dtype=np.float64).ravel()
    norm = float(np.linalg.norm(array))
    if not np.isfinite(norm) or norm == 0.0:
        raise ValueError("an anchor must be a finite, non-zero vector")
    return tuple(round(float(x), _ANCHOR_DECIMALS) + 0.0 for x in array / norm)


def placeholder_anchor(kind_id: str, dimension: int) -> Vector:
    """A fixed pseudo-random unit vector for a kind no embedding placed (no embedding model).

    Random directions in hundreds of dimensions are nearly orthogonal, so such kinds pool
    almost nothing from each other, and the vector depends only on the kind's id, so every
    replica derives the same one.
    """
    rng = np.random.default_rng(zlib.crc32(kind_id.encode("utf-8")))
    return round_anchor(rng.standard_normal(dimension))


def distinct_anchor(anchor: Vector, kind_id: str, taken: Container[Vector]) -> Vector:
    """`anchor`, or, while an earlier kind holds that exact vector, the vector moved a thousandth
    of its length in a direction fixed by `kind_id` (so every replica derives the same one).

    >>> first = (0.6, 0.8)
    >>> second = distinct_anchor(first, "task:beta", {first})
    >>> second != first, round(float(np.dot(first, second)), 4)
    (True, 1.0)
    """
    attempt = 0
    while anchor in taken:
        attempt += 1
        offset = np.asarray(placeholder_anchor(f"{kind_id}#{attempt}", len(anchor)))
        anchor = round_anchor(np.asarray(anchor) + _NUDGE * offset)
    return anchor


def discovered_kind(seq: int, anchor: Sequence[float], example: str) -> Kind:
    """The kind a query's embedding starts, at its place in the kind log."""
    return Kind(f"k{seq}", seq, "discovered", None, round_anchor(anchor), example)


def nearest_kind(vector: npt.ArrayLike, anchors: npt.NDArray[np.float64]) -> tuple[int, float]:
    """The row of `anchors` (unit vectors, one per kind) with the highest cosine with `vector`
    (a unit vector), and that cosine; (-1, -1.0) when there is none. Ties go to the first row.

    >>> nearest_kind((0.8, 0.6), np.array([[1.0, 0.0], [0.0, 1.0]]))
    (0, 0.8)
    """
    if len(anchors) == 0:
        return -1, -1.0
    similarities = anchors @ np.asarray(vector, dtype=np.float64)
    best = int(similarities.argmax())
    return best, round(float(similarities[best]), 6)


def fading_kind(
    members: Sequence[int],
    last_queries: Sequence[int],
    named: Sequence[bool],
    *,
    last_seq: int,
    fade_after: int = FADE_AFTER,
) -> int:
    """The discovered kind that fades to give a new kind its slot, by its row; -1 for none.

    Rows are the discovered kinds still matched, with each one's members (queries, while under
    `PROFILE_MEMBERS`), the seq of its last query's event, and whether it has a name. A kind may
    fade when it is tiny (at most `TINY_MEMBERS` queries), stale (its last query is not among the
    log's latest `fade_after` events: `last_seq - last_query >= fade_after`) and unnamed (a name
    is a person's word that the kind matters, and a task name refers to it). Of those, the one
    whose last query is oldest fades; no two share a seq, so the choice is one.

    >>> fading_kind([1, 9, 2], [3, 4, 5], [False, False, False], last_seq=40)
    0
    >>> fading_kind([1, 9, 2], [3, 4, 5], [True, False, False], last_seq=40)
    2
    >>> fading_kind([1], [30], [False], last_seq=40)  # queried within the latest 32 events
    -1
    """
    best, oldest = -1, last_seq + 1
    for row, (size, last, name) in enumerate(zip(members, last_queries, named, strict=True)):
        tiny, stale = size <= TINY_MEMBERS, last_seq - last >= fade_after
        if tiny and stale and not name and last < oldest:
            best, oldest = row, last
    return best
