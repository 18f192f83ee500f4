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
and a fresh snapshot. Otherwise it writes nothing and says so, and the portable path decides; a
writer that races it for the same key makes it fail whole (the unique index), as one bad
outcome fails a group's batch.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.adapters.store.codec import utc
from engine.adapters.store.tables import COUNTERS, DECISIONS, OUTCOMES, STATISTICS
from engine.domain.evidence import ENGINE_SOURCES
from engine.domain.records import OutcomeRecord
from engine.errors import StoreError

# A client source's first score (`evidence.takes_a_place`, `statements.is_client_source`): no '#',
# no engine source. The engine's sources are written into the text (the code's own names, never a
# caller's input): one array fewer to send with every statement.
_ENGINE_SOURCES = ", ".join(f"'{name}'" for name in ENGINE_SOURCES)
_CLIENT = f"strpos({{0}}, '#') = 0 AND {{0}} NOT IN ({_ENGINE_SOURCES})"

SQL = f"""
WITH decision AS (
    SELECT namespace, choices FROM {DECISIONS.name} WHERE decision_id = %(decision_id)s
), prior AS (
    SELECT seq, reward, weight FROM {OUTCOMES.name}
    WHERE decision_id = %(decision_id)s AND source = %(source)s
), seen AS (
    SELECT c.last_seq FROM {COUNTERS.name} c JOIN decision d USING (namespace)
), counter AS (
    SELECT c.namespace, c.last_seq FROM {COUNTERS.name} c JOIN decision d USING (namespace)
    WHERE NOT EXISTS (SELECT 1 FROM prior)
    FOR UPDATE OF c
), clients AS (
    SELECT count(*) AS sources FROM {OUTCOMES.name}
    WHERE decision_id = %(decision_id)s AND {_CLIENT.format("source")}
), crowded AS (
    SELECT 1 FROM clients
    WHERE {_CLIENT.format("CAST(%(source)s AS TEXT)")}
        AND sources >= CAST(%(max_sources)s AS INTEGER)
), fresh AS (
    SELECT c.namespace, c.last_seq FROM counter c, seen s
    WHERE c.last_seq = s.last_seq AND NOT EXISTS (SELECT 1 FROM crowded)
), appended AS (
    INSERT INTO {OUTCOMES.name} (namespace, seq, decision_id, source, reward, weight, created_at)
    SELECT namespace, last_seq + 1, %(decision_id)s, %(source)s, %(reward)s, %(weight)s,
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
    (SELECT sources FROM clients)
"""


MANY_SQL = f"""
WITH input AS (
    SELECT * FROM unnest(
        CAST(%(decision_ids)s AS TEXT[]), CAST(%(sources)s AS TEXT[]),
        CAST(%(rewards)s AS DOUBLE PRECISION[]), CAST(%(weights)s AS DOUBLE PRECISION[]),
        CAST(%(created_at)s AS TIMESTAMPTZ[]), CAST(%(max_sources)s AS INTEGER[])
    ) WITH ORDINALITY AS i(decision_id, source, reward, weight, created_at, max_sources, position)
), known AS (
    SELECT i.*, d.namespace, d.choices, h.stored > 0 AS stored,
        {_CLIENT.format("i.source")} AND i.max_sources <= h.clients + (
            SELECT count(*) FROM input j
            WHERE j.decision_id = i.decision_id AND j.position < i.position
                AND {_CLIENT.format("j.source")}
        ) AS crowded
    FROM input i LEFT JOIN LATERAL (
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
    FROM input i, fresh c
    RETURNING seq
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
SELECT (SELECT last_seq FROM fresh), (SELECT count(*) FROM appended),
    EXISTS (SELECT 1 FROM counter) AND NOT EXISTS (SELECT 1 FROM fresh)
"""

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

    @property
    def refused(self) -> bool:
        """The bound refused it, as counted on a snapshot that saw every earlier writer (a
        stale one cannot refuse: the portable path decides)."""
        return bool(self.fresh) and self.crowded


def append(cursor: Any, parameters: dict[str, Any]) -> Appended:
    """Run the statement on an autocommit cursor; `parameters` as in `SQL`."""
    cursor.execute(SQL, parameters)
    found, seq, prior_seq, reward, weight, fresh, crowded, clients = cursor.fetchone()
    prior = None if prior_seq is None else (int(prior_seq), float(reward), float(weight))
    return Appended(bool(found), seq, prior, fresh, bool(crowded), int(clients))


def append_many(
    cursor: Any, outcomes: Sequence[OutcomeRecord], created_at: Any
) -> list[int] | None:
    """Append `outcomes` in order with `MANY_SQL` on an autocommit cursor: their seqs, or None
    when it wrote nothing and the portable path must decide; `StaleSnapshotError` when another
    process committed while it waited for the counter (then `append_many_locked`).
    `created_at` stamps those without a moment of their own (bound as the driver takes it)."""
    keys = {(outcome.decision_id, outcome.source) for outcome in outcomes}
    if len(keys) < len(outcomes):  # one key twice: the second is a replay, the portable path's
        return None
    cursor.execute(
        MANY_SQL,
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
        },
    )
    last_seq, count, stale = cursor.fetchone()
    if stale:
        raise StaleSnapshotError
    if last_seq is None:
        return None
    if count != len(outcomes):  # the statement inserts all of them or fails: never here
        raise StoreError(f"appended {count} of {len(outcomes)} outcomes in one statement")
    return [last_seq + position for position in range(1, len(outcomes) + 1)]


def append_many_locked(
    cursor: Any, outcomes: Sequence[OutcomeRecord], created_at: Any
) -> list[int] | None:
    """`append_many` on a cursor in a transaction, the counter locked first (`LOCK_SQL`): two
    round trips more, where the portable path takes nine. Writers of one namespace in several
    processes make a statement wait for the counter often, and each such wait leaves it stale."""
    cursor.execute(LOCK_SQL, {"decision_id": outcomes[0].decision_id})
    return append_many(cursor, outcomes, created_at)
