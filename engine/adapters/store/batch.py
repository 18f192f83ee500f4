"""Many decisions or outcomes in one transaction: the bulk path behind import and replay.

A batch has exactly the semantics of the same records written one by one, in order: the same
seqs, the same idempotent replays and conflicts, the same statistics to the last bit (each sum
is accumulated in seq order from the stored value, as the one-by-one path does in SQL). It costs
one lock and one commit for the whole batch, and any error rolls all of it back.

Like the one-by-one hot path it runs compiled SQL on a driver cursor (see driver.py): ids are
looked up all at once through one array parameter (SQLite's json_each, PostgreSQL's unnest)
rather than an IN list of thousands of parameters.
"""

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, TextClause, bindparam, column, select, text, update

from engine.adapters.store.codec import utc
from engine.adapters.store.driver import (
    PositionalStatement,
    RawStatement,
    compile_positional,
    compile_raw,
    timestamp_binder,
)
from engine.adapters.store.statements import dialect_insert
from engine.adapters.store.tables import ARMS, COUNTERS, DECISIONS, OUTCOMES, STATISTICS
from engine.adapters.store.validation import placed_correction, replayed_receipt
from engine.domain.evidence import check_place
from engine.domain.records import OutcomeReceipt, OutcomeRecord
from engine.errors import StoreError, UnknownDecisionError

StatisticsKey = tuple[str, str, str]
APPEND_ORDER = ("namespace", "seq", "decision_id", "source", "reward", "weight", "created_at")


@dataclass(frozen=True)
class BatchStatements:
    """The batch path's statements, compiled for one store's dialect."""

    dialect: str
    decisions: RawStatement  # decision_id, namespace, choices of the ids given
    stored: RawStatement  # the whole rows of the decisions given
    insert_decision: RawStatement
    existing: RawStatement  # outcomes already recorded for the decisions given
    ensure_counter: RawStatement
    lock_counter: RawStatement
    set_counter: RawStatement
    totals: RawStatement  # a namespace's statistics
    append: PositionalStatement  # takes tuples in APPEND_ORDER
    write_total: RawStatement
    timestamp: Any  # how the driver takes a timestamp

    def ids(self, ids: list[str]) -> Any:
        """The array parameter of a list of ids, as the dialect reads it."""
        return json.dumps(ids) if self.dialect == "sqlite" else ids


def build_batch_statements(engine: Engine, dialect: str) -> BatchStatements:
    """Compile the batch statements for `engine`'s dialect."""
    insert = dialect_insert(dialect)
    ids = _ids_subquery(dialect)
    decisions = select(DECISIONS.c.decision_id, DECISIONS.c.namespace, DECISIONS.c.choices)
    lock = select(COUNTERS.c.last_seq).where(COUNTERS.c.namespace == bindparam("namespace"))
    totals = select(
        STATISTICS.c.role,
        STATISTICS.c.arm_id,
        STATISTICS.c.pulls,
        STATISTICS.c.reward_sum,
        STATISTICS.c.outcome_count,
        STATISTICS.c.last_seq,
    ).where(STATISTICS.c.namespace == bindparam("namespace"))
    write_total = insert(STATISTICS)
    write_total = write_total.on_conflict_do_update(
        index_elements=[STATISTICS.c.namespace, STATISTICS.c.role, STATISTICS.c.arm_id],
        set_={
            name: write_total.excluded[name]
            for name in ("pulls", "reward_sum", "outcome_count", "last_seq")
        },
    )
    existing = select(
        OUTCOMES.c.decision_id,
        OUTCOMES.c.source,
        OUTCOMES.c.seq,
        OUTCOMES.c.reward,
        OUTCOMES.c.weight,
    ).where(OUTCOMES.c.decision_id.in_(ids))

    def raw(statement: Any) -> RawStatement:
        return compile_raw(statement, engine)

    return BatchStatements(
        dialect=dialect,
        decisions=raw(decisions.where(DECISIONS.c.decision_id.in_(ids))),
        stored=raw(select(DECISIONS).where(DECISIONS.c.decision_id.in_(ids))),
        insert_decision=raw(insert(DECISIONS).on_conflict_do_nothing()),
        existing=raw(existing),
        ensure_counter=raw(insert(COUNTERS).on_conflict_do_nothing()),
        # SQLite's BEGIN IMMEDIATE already holds the only write lock; PostgreSQL locks the row
        lock_counter=raw(lock.with_for_update() if dialect == "postgresql" else lock),
        set_counter=raw(
            update(COUNTERS)
            .where(COUNTERS.c.namespace == bindparam("counter_namespace"))
            .values(last_seq=bindparam("counter_last_seq"))
        ),
        totals=raw(totals),
        append=_append(engine),
        write_total=raw(write_total),
        timestamp=timestamp_binder(engine),
    )


def _append(engine: Engine) -> PositionalStatement:
    statement = compile_positional(OUTCOMES.insert(), engine)
    if statement.names != APPEND_ORDER:  # the tuples below are built in this order
        raise StoreError(f"unexpected outcome columns {statement.names}")
    return statement


def _ids_subquery(dialect: str) -> Any:
    clause: TextClause
    if dialect == "sqlite":
        clause = text("SELECT value FROM json_each(:ids)")
    else:
        clause = text("SELECT unnest(CAST(:ids AS TEXT[]))")
    return clause.columns(column("value"))


def save_arm_row(connection: Connection, insert: Any, row: dict[str, Any]) -> None:
    """Insert an arm row, or update every field of it but its creation time."""
    statement = insert(ARMS).values(row)
    statement = statement.on_conflict_do_update(
        index_elements=[ARMS.c.namespace, ARMS.c.role, ARMS.c.arm_id],
        set_={name: statement.excluded[name] for name in row if name != "created_at"},
    )
    connection.execute(statement)


def save_decision_rows(
    cursor: Any, statements: BatchStatements, rows: Sequence[dict[str, Any]]
) -> int:
    """Insert the decision rows that are new; refuse one that differs from its stored version."""
    unique: dict[str, dict[str, Any]] = {}
    for row in rows:
        stored_row = {**row, "created_at": statements.timestamp(row["created_at"])}
        earlier = unique.setdefault(row["decision_id"], stored_row)
        if earlier != stored_row:
            raise StoreError(
                f"decision {row['decision_id']!r} appears twice with different content"
            )
    if not unique:
        return 0
    stored = _check_same(cursor, statements, unique)
    new = [row for decision_id, row in unique.items() if decision_id not in stored]
    if new:
        cursor.executemany(statements.insert_decision.sql, new)
    return len(new)


def _check_same(
    cursor: Any, statements: BatchStatements, rows: dict[str, dict[str, Any]]
) -> set[str]:
    """The ids among `rows` already stored; raise when a stored one differs from its row."""
    cursor.execute(statements.stored.sql, {"ids": statements.ids(list(rows))})
    names = [description[0] for description in cursor.description]
    stored: set[str] = set()
    for values in cursor.fetchall():
        found = dict(zip(names, values, strict=True))
        row = rows[found["decision_id"]]
        if found != row:
            raise StoreError(
                f"decision {row['decision_id']!r} was saved before with different content; "
                "a decision is immutable once saved"
            )
        stored.add(found["decision_id"])
    return stored


def record_outcome_batch(
    cursor: Any, statements: BatchStatements, outcomes: Sequence[OutcomeRecord], now: Any
) -> list[OutcomeReceipt]:
    """Record `outcomes` in order inside the cursor's transaction; return one receipt each."""
    if not outcomes:
        return []
    decisions = _decisions(cursor, statements, outcomes)
    namespaces = sorted({namespace for namespace, _ in decisions.values()})
    last_seq = _lock_counters(cursor, statements, namespaces)
    prior = stored_outcomes(cursor, statements, outcomes)
    totals = _totals(cursor, statements, namespaces)
    stamp = statements.timestamp
    default_moment = stamp(utc(now))
    receipts: list[OutcomeReceipt] = []
    appended: list[tuple[Any, ...]] = []
    for posted in outcomes:
        # `prior` holds every key of the decision, stored or taken earlier in this batch (read
        # only when a bound needs it: an import of many outcomes sets none).
        decision_id, outcome, revision = posted.decision_id, posted, 0
        if posted.max_revisions is not None:  # a correction: its key is chosen here
            stored = ((k, *v) for (d, k), v in prior.items() if d == decision_id)
            placed = placed_correction(posted, stored)
            if isinstance(placed, OutcomeReceipt):
                receipts.append(placed)
                continue
            outcome, revision = placed
        key = (outcome.decision_id, outcome.source)
        if key in prior:
            receipts.append(replayed_receipt(outcome, *prior[key]))
            continue
        stored_keys = (source for d, source in prior if d == decision_id)
        check_place(outcome.decision_id, outcome.source, outcome.max_sources, stored_keys)
        namespace, choices = decisions[outcome.decision_id]
        seq = last_seq[namespace] = last_seq[namespace] + 1
        prior[key] = (seq, outcome.reward, outcome.weight)
        appended.append(
            (
                namespace,
                seq,
                outcome.decision_id,
                outcome.source,
                outcome.reward,
                outcome.weight,
                default_moment if outcome.created_at is None else stamp(utc(outcome.created_at)),
            )
        )
        for role, arm_id in choices:
            stat_key = (namespace, role, arm_id)
            total = totals.get(stat_key)
            if total is None:
                total = totals[stat_key] = [0.0, 0.0, 0, 0]
            total[0] += outcome.weight
            total[1] += outcome.weight * outcome.reward
            total[2] += 1
            total[3] = seq
        receipts.append(OutcomeReceipt(seq=seq, applied=True, revision=revision))
    if appended:
        cursor.executemany(statements.append.sql, appended)
        cursor.executemany(
            statements.write_total.sql,
            [
                {
                    "namespace": key[0],
                    "role": key[1],
                    "arm_id": key[2],
                    "pulls": totals[key][0],
                    "reward_sum": totals[key][1],
                    "outcome_count": totals[key][2],
                    "last_seq": totals[key][3],
                }
                for key in sorted(totals)  # a namespace holds few arms: write them all
            ],
        )
        cursor.executemany(
            statements.set_counter.sql,
            [
                {"counter_namespace": namespace, "counter_last_seq": seq}
                for namespace, seq in last_seq.items()
            ],
        )
    return receipts


def _decisions(
    cursor: Any, statements: BatchStatements, outcomes: Sequence[OutcomeRecord]
) -> dict[str, tuple[str, list[tuple[str, str]]]]:
    wanted = list({outcome.decision_id: None for outcome in outcomes})
    cursor.execute(statements.decisions.sql, {"ids": statements.ids(wanted)})
    parsed: dict[str, list[tuple[str, str]]] = {}  # decisions share a few distinct choices
    found: dict[str, tuple[str, list[tuple[str, str]]]] = {}
    for decision_id, namespace, choices in cursor.fetchall():
        roles = parsed.get(choices)
        if roles is None:
            roles = parsed[choices] = sorted(json.loads(choices).items())
        found[decision_id] = (namespace, roles)
    for outcome in outcomes:
        if outcome.decision_id not in found:
            raise UnknownDecisionError(f"no decision with id {outcome.decision_id!r}")
    return found


def _lock_counters(
    cursor: Any, statements: BatchStatements, namespaces: list[str]
) -> dict[str, int]:
    """Lock the counters of `namespaces` in name order, so that batches cannot deadlock."""
    cursor.executemany(
        statements.ensure_counter.sql,
        [{"namespace": namespace, "last_seq": 0} for namespace in namespaces],
    )
    last_seq: dict[str, int] = {}
    for namespace in namespaces:
        cursor.execute(statements.lock_counter.sql, {"namespace": namespace})
        (last_seq[namespace],) = cursor.fetchone()
    return last_seq


def stored_outcomes(
    cursor: Any, statements: BatchStatements, outcomes: Sequence[OutcomeRecord]
) -> dict[tuple[str, str], tuple[int, float, float]]:
    """Every outcome stored for the decisions of `outcomes` (read after the counters are locked,
    so on PostgreSQL this statement's snapshot holds every earlier writer's)."""
    wanted = list({outcome.decision_id: None for outcome in outcomes})
    cursor.execute(statements.existing.sql, {"ids": statements.ids(wanted)})
    return {
        (decision_id, source): (seq, reward, weight)
        for decision_id, source, seq, reward, weight in cursor.fetchall()
    }


def _totals(
    cursor: Any, statements: BatchStatements, namespaces: list[str]
) -> dict[StatisticsKey, list[Any]]:
    totals: dict[StatisticsKey, list[Any]] = {}
    for namespace in namespaces:
        cursor.execute(statements.totals.sql, {"namespace": namespace})
        for role, arm_id, pulls, reward_sum, count, last in cursor.fetchall():
            totals[(namespace, role, arm_id)] = [pulls, reward_sum, count, last]
    return totals
