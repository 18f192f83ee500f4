"""Record an outcome on PostgreSQL in one round trip: one statement, committed on its own.

The portable path (`SqlStore._append`) sends BEGIN, a lookup, the counter bump, the append, the
statistics update and COMMIT: six round trips, which capped one process at about 1,000 durable
outcomes a second. Here the same steps are data-modifying CTEs of a single statement run in
autocommit mode, so the server parses, locks, writes and commits them in one exchange:

    decision   the decision's namespace and choices (none: an unknown decision)
    prior      an outcome already recorded for (decision, source): an idempotent replay
    counter    the namespace's counter row, locked FOR UPDATE: writers of one namespace queue
               here, so seqs follow commit order, as on the portable path
    appended   the outcome with seq = last_seq + 1, unless (decision, source) is there already
    bumped     the counter moved to that seq, only if the outcome went in
    counted    the outcome added to its arms' statistics, only if it went in

Nothing half-done can commit. A writer that loses a race for the same (decision, source) appends
nothing, so it bumps and counts nothing: no seq is skipped. A namespace without a counter row yet
(its very first outcome) appends nothing either, and says so: the caller takes the portable path
once, which creates the row.
"""

from dataclasses import dataclass
from typing import Any

from engine.adapters.store.tables import COUNTERS, DECISIONS, OUTCOMES, STATISTICS

SQL = f"""
WITH decision AS (
    SELECT namespace, choices FROM {DECISIONS.name} WHERE decision_id = %(decision_id)s
), prior AS (
    SELECT seq, reward, weight FROM {OUTCOMES.name}
    WHERE decision_id = %(decision_id)s AND source = %(source)s
), counter AS (
    SELECT c.namespace, c.last_seq FROM {COUNTERS.name} c JOIN decision d USING (namespace)
    WHERE NOT EXISTS (SELECT 1 FROM prior)
    FOR UPDATE OF c
), appended AS (
    INSERT INTO {OUTCOMES.name} (namespace, seq, decision_id, source, reward, weight, created_at)
    SELECT namespace, last_seq + 1, %(decision_id)s, %(source)s, %(reward)s, %(weight)s,
           %(created_at)s
    FROM counter
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
    (SELECT seq FROM prior), (SELECT reward FROM prior), (SELECT weight FROM prior)
"""


@dataclass(frozen=True)
class Appended:
    """What the statement did, read from its one result row."""

    decision_found: bool
    seq: int | None  # the new outcome's seq, when it went in
    prior: tuple[int, float, float] | None  # (seq, reward, weight) recorded before

    @property
    def needs_portable_path(self) -> bool:
        """Nothing went in, and not because of a replay: no counter row yet, or a lost race."""
        return self.decision_found and self.seq is None and self.prior is None


def append(cursor: Any, parameters: dict[str, Any]) -> Appended:
    """Run the statement on an autocommit cursor; `parameters` as in `SQL`."""
    cursor.execute(SQL, parameters)
    found, seq, prior_seq, reward, weight = cursor.fetchone()
    prior = None if prior_seq is None else (int(prior_seq), float(reward), float(weight))
    return Appended(bool(found), seq, prior)
