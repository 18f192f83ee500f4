"""One decision, one piece of evidence: who may post an outcome, and which outcome counts.

A decision may collect several outcomes: the tool's own failure, the checker's or the referee's
score written by the engine, a user's score posted later, that user's corrections. Counting
each of them as a pull let one decision weigh as many (28 extra outcomes moved an arm from 11.5
to 39.5 pulls). So the learner keeps, per decision and role, exactly one outcome *in force*,
chosen by `in_force` below, and a decision's weight on any arm is that outcome's weight: at most 1.

The rule (`in_force`), for one role of one decision:

1. Each source's latest revision stands for that source (a correction replaces its own earlier
   score; nothing else does).
2. Of the sources that teach the role, the most trusted one is in force (`TRUST`):
   tool run (the tool role only) > exact checker > user > referee.
3. Between equally trusted sources (two users), the one that scored first stays in force.

So a user's score replaces the referee's, an exact checker's stands against a user's, and thirty
user sources on one decision count as the first of them. The outcome log keeps every outcome as
posted; only the learner's statistics follow the rule.

Sources. The engine writes `checker`, `tool` and `referee` itself: a client may not
(`client_source` refuses them). A client's source is `user` or `user:<name>` (a name of 1-40
letters, digits, `.`, `_` or `-`), normalised first: case and surrounding or inner spacing do
not matter ("  User : Alice " is "user:alice").

Corrections. The store is append-only and keeps one outcome per (decision, source key). A
correction is a new outcome whose source key carries its revision, `user#2` being the second
correction of `user` (`source_key`, `split_source_key`); a client source never holds `#`, so the
keys never collide. Replaying the log in seq order, the learner takes revision n+1 as replacing
revision n of that source, subtracting the old contribution and adding the new one.

Bounds. Since one score per role counts, more sources and corrections only grow
the log: a decision takes at most `max_sources` client sources, each at most `max_revisions`
scores (its first and its corrections). Past either a post is refused (`OutcomeLimitError`),
and what was recorded stands. The engine's own sources (at most three) are not counted. The
store checks the sources in the transaction that writes the new one (`OutcomeRecord.max_sources`,
`takes_a_place`, `too_many_sources`), so that posts racing for a decision's last place cannot
both take it. A correction asks the store for its source's next revision
(`OutcomeRecord.max_revisions`), which the store resolves in the same transaction
(`next_revision`): of two corrections racing, each takes a revision of its own.
"""

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from engine.errors import InvalidRewardError, OutcomeLimitError

__all__ = [
    "CLIENT_SOURCE_FORMAT",
    "ENGINE_SOURCES",
    "TRUST",
    "Evidence",
    "Revision",
    "check_place",
    "client_source",
    "client_sources",
    "in_force",
    "next_revision",
    "source_key",
    "split_source_key",
    "takes_a_place",
    "teaches",
    "too_many_revisions",
    "too_many_sources",
    "trust_of",
]

CHECKER, TOOL, REFEREE, USER = "checker", "tool", "referee", "user"
ENGINE_SOURCES = (CHECKER, TOOL, REFEREE)  # written by the engine itself, never by a client
CLIENT_SOURCE_FORMAT = "'user' or 'user:<name>' (a name of 1-40 letters, digits, '.', '_', '-')"
_CLIENT_SOURCE = re.compile(r"user(?::[a-z0-9._-]{1,40})?")
_REVISION_MARK = "#"

# Higher is more trusted. A tool's own failure is a fact about the tool whatever the answer's
# score; an exact checker is ground truth; a user is a person who read the answer; the referee
# is a small model's opinion.
TRUST: Mapping[str, int] = {TOOL: 4, CHECKER: 3, USER: 2, REFEREE: 1}


def client_source(text: object) -> str:
    """A client's outcome source, normalised; `InvalidRewardError` for a reserved or bad one.

    >>> client_source("  User "), client_source("user : Alice")
    ('user', 'user:alice')
    >>> client_source("checker")
    Traceback (most recent call last):
    ...
    learning.errors.InvalidRewardError: source 'checker' is reserved: the engine writes its own ...
    """
    if not isinstance(text, str):
        raise InvalidRewardError(f"source must be text: {CLIENT_SOURCE_FORMAT}")
    source = re.sub(r"\s+", "", text).lower()
    if source in ENGINE_SOURCES:
        raise InvalidRewardError(
            f"source {source!r} is reserved: the engine writes its own {', '.join(ENGINE_SOURCES)}"
            f" outcomes; a client posts {CLIENT_SOURCE_FORMAT}"
        )
    if not _CLIENT_SOURCE.fullmatch(source):
        raise InvalidRewardError(f"source {text[:80]!r} is not allowed: use {CLIENT_SOURCE_FORMAT}")
    return source


def trust_of(source: str) -> int:
    """How much a source is trusted (`TRUST`); `user:<name>` counts as `user`, others as 0.

    >>> trust_of("user:alice") == trust_of("user"), trust_of("checker") > trust_of("user")
    (True, True)
    """
    return TRUST.get(source.split(":", 1)[0], 0)


def teaches(source: str, role: str) -> bool:
    """Whether outcomes of `source` teach `role`: a tool run teaches the tool role only, a
    judgement of the answer teaches every role.

    >>> teaches("tool", "path"), teaches("tool", "tool"), teaches("user", "seed")
    (False, True, True)
    """
    return source != TOOL or role == TOOL


def source_key(source: str, revision: int) -> str:
    """The key a store keeps an outcome under: the source, with its revision after the first.

    >>> source_key("user", 0), source_key("user:alice", 2)
    ('user', 'user:alice#2')
    """
    return source if revision == 0 else f"{source}{_REVISION_MARK}{revision}"


def split_source_key(key: str) -> tuple[str, int]:
    """The source and revision of a stored key (`source_key` undone).

    >>> split_source_key("user#3"), split_source_key("checker")
    (('user', 3), ('checker', 0))
    """
    source, mark, revision = key.partition(_REVISION_MARK)
    if mark and revision.isdigit() and int(revision) > 0:
        return source, int(revision)
    return key, 0


@dataclass(frozen=True)
class Evidence:
    """One source's standing score for a decision: the latest revision, and when it first came."""

    source: str
    reward: float
    weight: float
    first_seq: int  # the seq of the source's first outcome on this decision (ties: first wins)


def in_force(scores: Mapping[str, Evidence], role: str) -> Evidence | None:
    """The one outcome that teaches `role` for a decision whose sources stand at `scores`.

    >>> referee = Evidence("referee", 0.25, 0.5, 1)
    >>> user = Evidence("user", 1.0, 1.0, 2)
    >>> in_force({"referee": referee}, "path").source
    'referee'
    >>> in_force({"referee": referee, "user": user}, "path").source
    'user'
    >>> in_force({"tool": Evidence("tool", 0.0, 1.0, 1), "user": user}, "path").source
    'user'
    """
    taught = [evidence for evidence in scores.values() if teaches(evidence.source, role)]
    if not taught:
        return None
    return max(taught, key=lambda evidence: (trust_of(evidence.source), -evidence.first_seq))


@dataclass(frozen=True)
class Revision:
    """Where a correction of a source goes: the revision it takes, or (`standing_seq` set) the
    standing revision, which holds the correction's value already (no new row: not applied)."""

    revision: int
    standing_seq: int | None = None


def next_revision(
    decision_id: str,
    source: str,
    value: tuple[float, float],
    stored: Iterable[tuple[str, int, float, float]],
    max_revisions: int,
) -> Revision:
    """The revision a correction of `source` to `value` (reward, weight) takes on a decision
    whose `stored` outcomes are (key, seq, reward, weight): the next one, 0 with nothing to
    correct; `OutcomeLimitError` past `max_revisions`. The stores call this inside the write.

    >>> stored = [("user", 1, 0.0, 1.0), ("user#1", 2, 1.0, 1.0), ("user:bob", 3, 0.0, 1.0)]
    >>> next_revision("d1", "user", (0.0, 1.0), stored, 3)
    Revision(revision=2, standing_seq=None)
    >>> next_revision("d1", "user", (1.0, 1.0), stored, 3)  # its standing value already
    Revision(revision=1, standing_seq=2)
    >>> next_revision("d1", "user:eve", (1.0, 1.0), stored, 3)
    Revision(revision=0, standing_seq=None)
    >>> next_revision("d1", "user", (0.0, 1.0), stored, 2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    engine.errors.OutcomeLimitError: 'user' has corrected its score for decision 'd1' 1 times; ...
    """
    revisions = [
        (split_source_key(key)[1], seq, (reward, weight))
        for key, seq, reward, weight in stored
        if split_source_key(key)[0] == source
    ]
    if not revisions:
        return Revision(0)
    revision, seq, standing = max(revisions)
    if standing == value:
        return Revision(revision, seq)
    if revision + 1 >= max_revisions:
        raise too_many_revisions(decision_id, source, revision + 1, max_revisions)
    return Revision(revision + 1)


def too_many_revisions(
    decision_id: str, source: str, revision: int, max_revisions: int
) -> OutcomeLimitError:
    """The refusal of `source`'s score at `revision`, past `max_revisions` of them."""
    return OutcomeLimitError(
        f"{source!r} has corrected its score for decision {decision_id!r} {revision - 1} "
        f"times; a source keeps at most {max_revisions} scores (the first and "
        f"{max_revisions - 1} corrections, THINKPATH_MAX_OUTCOME_REVISIONS): its latest "
        "score stands, and this one was not recorded"
    )


def client_sources(keys: Iterable[str]) -> set[str]:
    """The client sources among a decision's stored source keys (each counted once).

    >>> sorted(client_sources(["checker", "user", "user#1", "user:bob"]))
    ['user', 'user:bob']
    """
    return {split_source_key(key)[0] for key in keys} - set(ENGINE_SOURCES)


def takes_a_place(key: str) -> bool:
    """Whether a stored key is a client source's first score, which takes one of a decision's
    `max_sources` places (a correction or the engine's own score takes none).

    >>> takes_a_place("user:bob"), takes_a_place("user#1"), takes_a_place("checker")
    (True, False, False)
    """
    source, revision = split_source_key(key)
    return revision == 0 and source not in ENGINE_SOURCES


def check_place(
    decision_id: str, key: str, max_sources: int | None, stored_keys: Iterable[str]
) -> None:
    """Refuse `key`, a client source's first score, when its decision's `stored_keys` hold
    `max_sources` client sources already (`OutcomeRecord.max_sources`; None: no bound). The
    stores that count in Python call this inside the write that stores `key`.

    >>> check_place("d1", "user:c", 2, ["checker", "user:a", "user:a#1"])
    >>> check_place("d1", "user:c", 2, ["user:a", "user:b"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    engine.errors.OutcomeLimitError: decision 'd1' has scores from 2 client sources, ...
    """
    if max_sources is None or not takes_a_place(key):
        return
    clients = len(client_sources(stored_keys))
    if clients >= max_sources:
        raise too_many_sources(decision_id, clients, key)


def too_many_sources(decision_id: str, clients: int, source: str) -> OutcomeLimitError:
    """The refusal of a new client source for a decision that holds `clients` of them."""
    return OutcomeLimitError(
        f"decision {decision_id!r} has scores from {clients} client sources, the most "
        f"it keeps (THINKPATH_MAX_OUTCOME_SOURCES); {source!r} was not recorded. The scores "
        "recorded so far stand, and each of those sources may still correct its own"
    )
