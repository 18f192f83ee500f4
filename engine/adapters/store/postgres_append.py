"""Record an outcome on PostgreSQL in one round trip: one statement, committed on its own.

The portable path (`SqlStore._append`) sends BEGIN, a lookup, the counter bump, the append, the
statistics update and COMMIT: six round trips, which capped one process at about 1,000 durable
outcomes a second. Here the same steps are data-modifying CTEs of a single statement run in
autocommit mode, so the server parses, locks, writes and commits them in one exchange:

    decision   the decision's namespace and choices (none: an unknown decision)
    prior      an outcome already recorded for (decision, source): an idempotent replay
    seen       the namespace's counter row, as the statement's snapshot sees it
    counter    the same row, locked FOR UPDATE: writers of one namespace queue here, so seqs
               follow commit order, as on the portable path
    clients    the client sources the decision holds
    crowded    a client source's first score (`OutcomeRecord.max_sources`) with no place left
    fresh      the counter, when the row as locked is the row the snapshot saw (see below)
    appended   the outcome with seq = last_seq + 1, unless (decision, source) is there already
    bumped     the counter moved to that seq, only if the outcome went in
    counted    the outcome added to its arms' statistics, only if it went in

A correction (`OutcomeRecord.max_revisions`) runs `CORRECTION_SQL`, the same statement with three
steps more, so that it reads nothing before its write either:

    latest     the correction's source as it stands: its row of the highest revision
    target     the key it takes, the source's next revision (`evidence.source_key`)
    standing   the latest, when it holds the correction's value already: no write, not applied

and past `max_revisions` it is refused (`spent`) on a fresh snapshot, as a crowded one is; a
stale one writes nothing, and the portable path decides with its reads after the lock, so of two
corrections racing the second takes the revision after the first's. Plain outcomes keep `SQL`,
without these steps, which made a plain write's statement a third slower or more on the server.

Nothing half-done can commit. A writer that loses a race for the same (decision, source) appends
nothing, so it bumps and counts nothing: no seq is skipped. A namespace without a counter row yet
(its very first outcome) appends nothing either, and says so: the caller takes the portable path
once, which creates the row.

Why `fresh`: the statement reads with one snapshot, taken before it waits for the counter's lock,
and a writer of another process may commit in that wait (the lock then hands over the row as that
writer left it). The snapshot would miss that writer's outcomes, so a count of the decision's
sources could let two posts take its last place. When the counter moved, the statement writes
nothing and the portable path decides, whose reads come after the lock (a group's batch takes
the lock first, then the same statement: `append_many_locked`); writers of one process never
meet this, since group commit writes their statements one at a time.

`append_many` does the same for the outcomes group commit gathers (`MANY_SQL`), in order, in one
round trip: the portable batch path's ten round trips (BEGIN, the decisions, the counters, the
outcomes there already, the statistics, the writes, COMMIT) made the leader's write, not the WAL
flush, the bound on a process's outcomes per second. It takes only the plain case: every
decision known, in one namespace that has a counter, no (decision, source) there already nor
twice in the batch, every bound met (an outcome's bound counts the earlier ones of the batch too),
and a fresh snapshot; a correction takes its source's next revision as `CORRECTION_SQL` does,
unless another outcome of the batch posts the same source, its value stands already or it is
past its bound (`MANY_CORRECTIONS_SQL`). Otherwise
it writes nothing and says so, and the portable path decides; a
writer that races it for the same key makes it fail whole (the unique index), as one bad
outcome fails a group's batch.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.adapters.store.codec import utc
from engine.adapters.store.tables import COUNTERS, DECISIONS, OUTCOMES, STATISTICS
from engine.adapters.store.validation import replayed_receipt
from engine.domain.evidence import (
    ENGINE_SOURCES,
    split_source_key,
    too_many_revisions,
    too_many_sources,
)
from engine.domain.records import OutcomeReceipt, OutcomeRecord
from engine.errors import StoreError, UnknownDecisionError

# A client source's first score (`evidence.takes_a_place`, `statements.is_client_source`): no '#',
# no engine source. The engine's sources are written into the text (the code's own names, never a
# caller's input): one array fewer to send with every statement.
_ENGINE_SOURCES = ", ".join(f"'{name}'" for name in ENGINE_SOURCES)
_CLIENT = f"strpos({{0}}, '#') = 0 AND {{0}} NOT IN ({_ENGINE_SOURCES})"

# A correction's source (`OutcomeRecord.max_revisions`) as it stands on the decision: the row of
# its highest revision, `{0}` being the source and `{1}` the decision (`evidence.source_key`).
_LATEST = f"""
    SELECT o.seq, o.reward, o.weight,
        CASE WHEN o.source = {{0}} THEN 0
            ELSE CAST(substr(o.source, length({{0}}) + 2) AS INTEGER) END AS revision
    FROM {OUTCOMES.name} o
    WHERE o.decision_id = {{1}}
        AND (o.source = {{0}} OR left(o.source, length({{0}}) + 1) = {{0}} || '#')
    ORDER BY revision DESC LIMIT 1
"""
_SOURCE = "CAST(%(source)s AS TEXT)"

# A correction's key and revision (`target`), and its value standing already (`standing`). A
# plain outcome's statement leaves these out: they cost it a third more time on the server.
_CORRECTION = f"""
latest AS ({_LATEST.format(_SOURCE, "%(decision_id)s")}), target AS (
    SELECT CASE WHEN l.revision IS NULL THEN {_SOURCE}
            ELSE {_SOURCE} || '#' || (l.revision + 1) END AS source,
        coalesce(l.revision + 1, 0) AS revision
    FROM (SELECT 1) one LEFT JOIN latest l ON TRUE
), standing AS (
    SELECT seq, revision FROM latest WHERE reward = %(reward)s AND weight = %(weight)s
),"""

_TEMPLATE = f"""
WITH decision AS (
    SELECT namespace, choices FROM {DECISIONS.name} WHERE decision_id = %(decision_id)s
), {{correction}} prior AS (
    SELECT seq, reward, weight FROM {OUTCOMES.name}
    WHERE decision_id = %(decision_id)s AND source = {{key}}
), seen AS (
    SELECT c.last_seq FROM {COUNTERS.name} c JOIN decision d USING (namespace)
), counter AS (
    SELECT c.namespace, c.last_seq FROM {COUNTERS.name} c JOIN decision d USING (namespace)
    WHERE NOT EXISTS (SELECT 1 FROM prior) {{unsettled}}
    FOR UPDATE OF c
), clients AS (
    SELECT count(*) AS sources FROM {OUTCOMES.name}
    WHERE decision_id = %(decision_id)s AND {_CLIENT.format("source")}
), crowded AS (
    SELECT 1 FROM clients
    WHERE {_CLIENT.format("{key}")} AND sources >= CAST(%(max_sources)s AS INTEGER)
), fresh AS (
    SELECT c.namespace, c.last_seq FROM counter c, seen s
    WHERE c.last_seq = s.last_seq AND NOT EXISTS (SELECT 1 FROM crowded) {{unspent}}
), appended AS (
    INSERT INTO {OUTCOMES.name} (namespace, seq, decision_id, source, reward, weight, created_at)
    SELECT namespace, last_seq + 1, %(decision_id)s, {{key}}, %(reward)s, %(weight)s,
           %(created_at)s
    FROM fresh
    ON CONFLICT (decision_id, source) DO NOTHING
    RETURNING namespace, seq
), bumped AS (
    UPDATE {COUNTERS.name} c SET last_seq = a.seq FROM appended a WHERE c.namespace = a.namespace
), counted AS (
    INSERT INTO {STATISTICS.name} AS s
        (namespace, role, arm_id, pulls, reward_sum, outcome_count, last_seq)
    SELECT a.namespace, choice.key, choice.value, %(weight)s, %(reward_sum)s, 1, a.seq
    FROM appended a, decision d, jsonb_each_text(d.choices::jsonb) AS choice
    ON CONFLICT (namespace, role, arm_id) DO UPDATE SET
        pulls = s.pulls + excluded.pulls,
        reward_sum = s.reward_sum + excluded.reward_sum,
        outcome_count = s.outcome_count + 1,
        last_seq = excluded.last_seq
)
SELECT
    EXISTS (SELECT 1 FROM decision),
    (SELECT seq FROM appended),
    (SELECT seq FROM prior), (SELECT reward FROM prior), (SELECT weight FROM prior),
    (SELECT c.last_seq = s.last_seq FROM counter c, seen s), EXISTS (SELECT 1 FROM crowded),
    (SELECT sources FROM clients),
    {{revisions}}
"""

SQL = _TEMPLATE.format(
    correction="", key=_SOURCE, unsettled="", unspent="", revisions="0, NULL, NULL, FALSE"
)
# A correction (`OutcomeRecord.max_revisions`): past the bound it is `spent`, and writes nothing.
_SPENT = "(SELECT revision >= CAST(%(max_revisions)s AS INTEGER) FROM target)"
CORRECTION_SQL = _TEMPLATE.format(
    correction=_CORRECTION,
    key="(SELECT source FROM target)",
    unsettled="AND NOT EXISTS (SELECT 1 FROM standing)",
    unspent=f"AND NOT {_SPENT}",
    revisions=f"""(SELECT revision FROM target), (SELECT seq FROM standing),
    (SELECT revision FROM standing), {_SPENT}""",
)


_MANY = f"""
WITH input AS (
    SELECT * FROM unnest(
        CAST(%(decision_ids)s AS TEXT[]), CAST(%(sources)s AS TEXT[]),
        CAST(%(rewards)s AS DOUBLE PRECISION[]), CAST(%(weights)s AS DOUBLE PRECISION[]),
        CAST(%(created_at)s AS TIMESTAMPTZ[]), CAST(%(max_sources)s AS INTEGER[]),
        CAST(%(max_revisions)s AS INTEGER[])
    ) WITH ORDINALITY AS i(
        decision_id, source, reward, weight, created_at, max_sources, max_revisions, position
    )
), target AS ({{target}}
), known AS (
    SELECT i.*, d.namespace, d.choices, h.stored > 0 AS stored,
        {_CLIENT.format("i.source")} AND i.max_sources <= h.clients + (
            SELECT count(*) FROM target j
            WHERE j.decision_id = i.decision_id AND j.position < i.position
                AND {_CLIENT.format("j.source")}
        ) AS crowded
    FROM target i LEFT JOIN LATERAL (
        SELECT namespace, choices FROM {DECISIONS.name} WHERE decision_id = i.decision_id
        OFFSET 0
    ) d ON TRUE CROSS JOIN LATERAL (
        SELECT count(*) FILTER (WHERE o.source = i.source) AS stored,
            count(*) FILTER (WHERE {_CLIENT.format("o.source")}) AS clients
        FROM {OUTCOMES.name} o WHERE o.decision_id = i.decision_id
        OFFSET 0
    ) h
), plain AS (
    SELECT min(namespace) AS namespace FROM known
    HAVING count(namespace) = count(*) AND count(DISTINCT namespace) = 1
        AND NOT bool_or(stored) AND NOT bool_or(crowded IS TRUE)
        AND NOT bool_or(settled IS TRUE)
), seen AS (
    SELECT c.last_seq FROM {COUNTERS.name} c JOIN plain USING (namespace)
), counter AS (
    SELECT c.namespace, c.last_seq FROM {COUNTERS.name} c JOIN plain USING (namespace)
    FOR UPDATE OF c
), fresh AS (
    SELECT c.namespace, c.last_seq FROM counter c, seen s WHERE c.last_seq = s.last_seq
), appended AS (
    INSERT INTO {OUTCOMES.name} (namespace, seq, decision_id, source, reward, weight, created_at)
    SELECT c.namespace, c.last_seq + i.position, i.decision_id, i.source, i.reward, i.weight,
           i.created_at
    FROM target i, fresh c
    RETURNING seq, source
), bumped AS (
    UPDATE {COUNTERS.name} c SET last_seq = k.last_seq + (SELECT count(*) FROM appended)
    FROM fresh k WHERE c.namespace = k.namespace
), counted AS (
    INSERT INTO {STATISTICS.name} AS s
        (namespace, role, arm_id, pulls, reward_sum, outcome_count, last_seq)
    SELECT f.namespace, choice.key, choice.value, sum(k.weight), sum(k.weight * k.reward),
           count(*), f.last_seq + max(k.position)
    FROM known k, fresh f, jsonb_each_text(k.choices::jsonb) AS choice
    GROUP BY f.namespace, f.last_seq, choice.key, choice.value
    ON CONFLICT (namespace, role, arm_id) DO UPDATE SET
        pulls = s.pulls + excluded.pulls,
        reward_sum = s.reward_sum + excluded.reward_sum,
        outcome_count = s.outcome_count + excluded.outcome_count,
        last_seq = excluded.last_seq
)
SELECT (SELECT last_seq FROM fresh), (SELECT array_agg(source ORDER BY seq) FROM appended),
    EXISTS (SELECT 1 FROM counter) AND NOT EXISTS (SELECT 1 FROM fresh)
"""

# A batch's target keys: its outcomes' own, or a correction's at its source's next revision (and
# `settled` when that revision is past the bound, or its value stands already: then the
# portable path answers). A batch without corrections leaves the lateral reads out.
MANY_SQL = _MANY.format(target="SELECT i.*, NULL::BOOLEAN AS settled FROM input i")
MANY_CORRECTIONS_SQL = _MANY.format(
    target=f"""
    SELECT i.decision_id, i.reward, i.weight, i.created_at, i.max_sources, i.position,
        CASE WHEN l.revision IS NULL THEN i.source
            ELSE i.source || '#' || (l.revision + 1) END AS source,
        l.revision + 1 >= i.max_revisions OR (l.reward = i.reward AND l.weight = i.weight)
            AS settled
    FROM input i LEFT JOIN LATERAL (
        SELECT * FROM ({_LATEST.format("i.source", "i.decision_id")}) r
        WHERE i.max_revisions IS NOT NULL
    ) l ON TRUE
"""
)


# Taken first, in a transaction, when `MANY_SQL` found its snapshot stale: the statement after
# it then reads with a snapshot taken while this transaction holds the counter.
LOCK_SQL = f"""
SELECT c.last_seq FROM {COUNTERS.name} c JOIN {DECISIONS.name} d USING (namespace)
WHERE d.decision_id = %(decision_id)s FOR UPDATE OF c
"""


class StaleSnapshotError(Exception):
    """`MANY_SQL` waited for the counter while another process committed: it wrote nothing."""


@dataclass(frozen=True)
class Appended:
    """What the statement did, read from its one result row."""

    decision_found: bool
    seq: int | None  # the new outcome's seq, when it went in
    prior: tuple[int, float, float] | None  # (seq, reward, weight) recorded before
    fresh: bool | None  # the counter as locked is the one the snapshot saw (None: not locked)
    crowded: bool  # the outcome takes a client's place, and its decision had none left
    clients: int  # the client sources the decision held, as the snapshot saw them
    revision: int  # a correction's revision, the one it takes (0 for another outcome)
    standing: tuple[int, int] | None  # a correction's (seq, revision) already of its value
    spent: bool  # a correction past its source's revisions

    @property
    def refused(self) -> bool:
        """A bound refused it, as counted on a snapshot that saw every earlier writer (a
        stale one cannot refuse: the portable path decides)."""
        return bool(self.fresh) and (self.crowded or self.spent)


def append(cursor: Any, parameters: dict[str, Any]) -> Appended:
    """Run the statement on an autocommit cursor; `parameters` as in `SQL` (`CORRECTION_SQL`
    when `max_revisions` is given: a correction)."""
    correction = parameters.get("max_revisions") is not None
    cursor.execute(CORRECTION_SQL if correction else SQL, parameters)
    row = cursor.fetchone()
    found, seq, prior_seq, reward, weight, fresh, crowded, clients = row[:8]
    revision, standing_seq, standing_revision, spent = row[8:]
    prior = None if prior_seq is None else (int(prior_seq), float(reward), float(weight))
    standing = None if standing_seq is None else (int(standing_seq), int(standing_revision))
    return Appended(
        bool(found),
        seq,
        prior,
        fresh,
        bool(crowded),
        int(clients),
        int(revision),
        standing,
        bool(spent),
    )


def receipt_of(outcome: OutcomeRecord, result: Appended) -> OutcomeReceipt | None:
    """`outcome`'s receipt or error from what `append` did; None when the portable path must
    decide (a stale snapshot, a namespace without a counter row yet)."""
    if not result.decision_found:
        raise UnknownDecisionError(f"no decision with id {outcome.decision_id!r}")
    if result.standing is not None:
        seq, revision = result.standing
        return OutcomeReceipt(seq=seq, applied=False, revision=revision)
    if result.prior is not None:
        return replayed_receipt(outcome, *result.prior)
    if result.seq is not None:
        return OutcomeReceipt(seq=result.seq, applied=True, revision=result.revision)
    if result.refused and result.spent:
        assert outcome.max_revisions is not None  # only a correction is spent
        limit = outcome.max_revisions
        raise too_many_revisions(outcome.decision_id, outcome.source, result.revision, limit)
    if result.refused:
        raise too_many_sources(outcome.decision_id, result.clients, outcome.source)
    return None


def append_many(
    cursor: Any, outcomes: Sequence[OutcomeRecord], created_at: Any
) -> list[OutcomeReceipt] | None:
    """Append `outcomes` in order with `MANY_SQL` on an autocommit cursor: their receipts, or
    None when it wrote nothing and the portable path must decide; `StaleSnapshotError` when
    another process committed while it waited for the counter (then `append_many_locked`).
    `created_at` stamps those without a moment of their own (bound as the driver takes it)."""
    if not _plain_keys(outcomes):
        return None
    corrections = any(outcome.max_revisions is not None for outcome in outcomes)
    cursor.execute(
        MANY_CORRECTIONS_SQL if corrections else MANY_SQL,
        {
            "decision_ids": [outcome.decision_id for outcome in outcomes],
            "sources": [outcome.source for outcome in outcomes],
            "rewards": [outcome.reward for outcome in outcomes],
            "weights": [outcome.weight for outcome in outcomes],
            "created_at": [
                created_at if outcome.created_at is None else utc(outcome.created_at)
                for outcome in outcomes
            ],
            "max_sources": [outcome.max_sources for outcome in outcomes],
            "max_revisions": [outcome.max_revisions for outcome in outcomes],
        },
    )
    last_seq, keys, stale = cursor.fetchone()
    if stale:
        raise StaleSnapshotError
    if last_seq is None:
        return None
    count = len(keys or ())
    if count != len(outcomes):  # the statement inserts all of them or fails: never here
        raise StoreError(f"appended {count} of {len(outcomes)} outcomes in one statement")
    return [
        OutcomeReceipt(
            seq=last_seq + position,
            applied=True,
            revision=0 if outcome.max_revisions is None else split_source_key(key)[1],
        )
        for position, (outcome, key) in enumerate(zip(outcomes, keys, strict=True), start=1)
    ]


def _plain_keys(outcomes: Sequence[OutcomeRecord]) -> bool:
    """No key twice in the batch (the second is a replay), and no correction of a source that
    another outcome of the batch posts too (its revision follows that one's): else the portable
    path decides, in order."""
    keys = {(outcome.decision_id, outcome.source) for outcome in outcomes}
    if len(keys) < len(outcomes):
        return False
    if all(outcome.max_revisions is None for outcome in outcomes):
        return True
    sources = {(o.decision_id, split_source_key(o.source)[0]) for o in outcomes}
    return len(sources) == len(outcomes)


def append_many_locked(
    cursor: Any, outcomes: Sequence[OutcomeRecord], created_at: Any
) -> list[OutcomeReceipt] | None:
    """`append_many` on a cursor in a transaction, the counter locked first (`LOCK_SQL`): two
    round trips more, where the portable path takes nine. Writers of one namespace in several
    processes make a statement wait for the counter often, and each such wait leaves it stale."""
    cursor.execute(LOCK_SQL, {"decision_id": outcomes[0].decision_id})
    return append_many(cursor, outcomes, created_at)
