"""Many decisions or outcomes in one transaction: the bulk path behind import and replay.

A batch has exactly the semantics of the same records written one by one, in order: the same
seqs, the same idempotent replays and conflicts, the same statistics to the last bit (each sum
is accumulated in seq order from the stored value, as the one-by-one path does in SQL). It costs
one lock and one commit for the whole batch, and any error rolls all of it back.
"""

from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, bindparam, select, update

from engine.errors import OutcomeConflictError, StoreError, UnknownDecisionError
from engine.ports import OutcomeReceipt, OutcomeRecord
from engine.store.codec import utc
from engine.store.statistics import choices_of
from engine.store.tables import ARMS, COUNTERS, DECISIONS, OUTCOMES, STATISTICS

CHUNK = 900  # ids per IN (...) list: below SQLite's oldest limit of 999 bound parameters

StatisticsKey = tuple[str, str, str]


def save_arm_row(connection: Connection, insert: Any, row: dict[str, Any]) -> None:
    """Insert an arm row, or update every field of it but its creation time."""
    statement = insert(ARMS).values(row)
    statement = statement.on_conflict_do_update(
        index_elements=[ARMS.c.namespace, ARMS.c.role, ARMS.c.arm_id],
        set_={name: statement.excluded[name] for name in row if name != "created_at"},
    )
    connection.execute(statement)


def save_decision_rows(connection: Connection, insert: Any, rows: Sequence[dict[str, Any]]) -> int:
    """Insert decision rows that are new; refuse one that differs from its stored version."""
    unique: dict[str, dict[str, Any]] = {}
    for row in rows:
        earlier = unique.setdefault(row["decision_id"], row)
        if earlier is not row and earlier != row:
            raise StoreError(
                f"decision {row['decision_id']!r} appears twice with different content"
            )
    if len(unique) == 1:
        # the common case, one decision: a single round trip when it is new
        (row,) = unique.values()
        statement = insert(DECISIONS).on_conflict_do_nothing().returning(DECISIONS.c.decision_id)
        if connection.execute(statement, row).first() is not None:
            return 1
        _check_same(connection, [row])
        return 0
    stored = _check_same(connection, list(unique.values()))
    new = [row for decision_id, row in unique.items() if decision_id not in stored]
    if new:
        connection.execute(insert(DECISIONS).on_conflict_do_nothing(), new)
    return len(new)


def _check_same(connection: Connection, rows: list[dict[str, Any]]) -> set[str]:
    """The ids among `rows` already stored; raise when a stored one differs from its row."""
    wanted = {row["decision_id"]: row for row in rows}
    stored: set[str] = set()
    for chunk in _chunks(sorted(wanted)):
        query = select(DECISIONS).where(DECISIONS.c.decision_id.in_(chunk))
        for found in connection.execute(query).mappings():
            row = wanted[found["decision_id"]]
            if {**found, "created_at": utc(found["created_at"])} != row:
                raise StoreError(
                    f"decision {row['decision_id']!r} was saved before with different content; "
                    "a decision is immutable once saved"
                )
            stored.add(found["decision_id"])
    return stored


def record_outcome_batch(
    connection: Connection, dialect: str, insert: Any, outcomes: Sequence[OutcomeRecord]
) -> list[OutcomeReceipt]:
    """Record `outcomes` in order inside the caller's transaction; return one receipt each."""
    if not outcomes:
        return []
    decisions = _decisions(connection, outcomes)
    namespaces = sorted({namespace for namespace, _ in decisions.values()})
    last_seq = _lock_counters(connection, dialect, insert, namespaces)
    prior = _existing(connection, outcomes)
    totals = _totals(connection, namespaces)
    now = datetime.now(UTC)
    receipts: list[OutcomeReceipt] = []
    appended: list[dict[str, Any]] = []
    touched: set[StatisticsKey] = set()
    for outcome in outcomes:
        key = (outcome.decision_id, outcome.source)
        if key in prior:
            seq, reward, weight = prior[key]
            if (reward, weight) != (outcome.reward, outcome.weight):
                raise OutcomeConflictError(
                    f"decision {outcome.decision_id!r} already has a {outcome.source!r} outcome "
                    f"(reward {reward}, weight {weight}); refusing reward {outcome.reward}, "
                    f"weight {outcome.weight}"
                )
            receipts.append(OutcomeReceipt(seq=seq, applied=False))
            continue
        namespace, choices = decisions[outcome.decision_id]
        last_seq[namespace] += 1
        seq = last_seq[namespace]
        prior[key] = (seq, outcome.reward, outcome.weight)
        appended.append(
            {
                "namespace": namespace,
                "seq": seq,
                "decision_id": outcome.decision_id,
                "source": outcome.source,
                "reward": outcome.reward,
                "weight": outcome.weight,
                "created_at": utc(outcome.created_at or now),
            }
        )
        for role, arm_id in sorted(choices.items()):
            stat_key = (namespace, role, arm_id)
            total = totals.setdefault(stat_key, [0.0, 0.0, 0, 0])
            total[0] += outcome.weight
            total[1] += outcome.weight * outcome.reward
            total[2] += 1
            total[3] = seq
            touched.add(stat_key)
        receipts.append(OutcomeReceipt(seq=seq, applied=True))
    if appended:
        connection.execute(insert(OUTCOMES), appended)
        _write_totals(connection, insert, {key: totals[key] for key in sorted(touched)})
        connection.execute(
            update(COUNTERS)
            .where(COUNTERS.c.namespace == bindparam("counter_namespace"))
            .values(last_seq=bindparam("counter_last_seq")),
            [
                {"counter_namespace": namespace, "counter_last_seq": seq}
                for namespace, seq in last_seq.items()
            ],
        )
    return receipts


def _decisions(
    connection: Connection, outcomes: Sequence[OutcomeRecord]
) -> dict[str, tuple[str, dict[str, str]]]:
    wanted = sorted({outcome.decision_id for outcome in outcomes})
    found: dict[str, tuple[str, dict[str, str]]] = {}
    for chunk in _chunks(wanted):
        query = select(DECISIONS.c.decision_id, DECISIONS.c.namespace, DECISIONS.c.choices).where(
            DECISIONS.c.decision_id.in_(chunk)
        )
        for decision_id, namespace, choices in connection.execute(query):
            found[decision_id] = (namespace, choices_of(choices))
    for outcome in outcomes:
        if outcome.decision_id not in found:
            raise UnknownDecisionError(f"no decision with id {outcome.decision_id!r}")
    return found


def _lock_counters(
    connection: Connection, dialect: str, insert: Any, namespaces: list[str]
) -> dict[str, int]:
    """Lock the counters of `namespaces` (in name order, so batches cannot deadlock)."""
    connection.execute(
        insert(COUNTERS).on_conflict_do_nothing(),
        [{"namespace": namespace, "last_seq": 0} for namespace in namespaces],
    )
    query = select(COUNTERS.c.namespace, COUNTERS.c.last_seq).where(
        COUNTERS.c.namespace.in_(namespaces)
    )
    if dialect == "postgresql":  # SQLite's BEGIN IMMEDIATE already holds the only write lock
        query = query.order_by(COUNTERS.c.namespace).with_for_update()
    return dict(connection.execute(query).all())


def _existing(
    connection: Connection, outcomes: Sequence[OutcomeRecord]
) -> dict[tuple[str, str], tuple[int, float, float]]:
    keys = {(outcome.decision_id, outcome.source) for outcome in outcomes}
    found: dict[tuple[str, str], tuple[int, float, float]] = {}
    for chunk in _chunks(sorted({decision_id for decision_id, _ in keys})):
        query = select(
            OUTCOMES.c.decision_id,
            OUTCOMES.c.source,
            OUTCOMES.c.seq,
            OUTCOMES.c.reward,
            OUTCOMES.c.weight,
        ).where(OUTCOMES.c.decision_id.in_(chunk))
        for decision_id, source, seq, reward, weight in connection.execute(query):
            if (decision_id, source) in keys:
                found[(decision_id, source)] = (seq, reward, weight)
    return found


def _totals(connection: Connection, namespaces: list[str]) -> dict[StatisticsKey, list[Any]]:
    query = select(
        STATISTICS.c.namespace,
        STATISTICS.c.role,
        STATISTICS.c.arm_id,
        STATISTICS.c.pulls,
        STATISTICS.c.reward_sum,
        STATISTICS.c.outcome_count,
        STATISTICS.c.last_seq,
    ).where(STATISTICS.c.namespace.in_(namespaces))
    return {
        (namespace, role, arm_id): [pulls, reward_sum, count, last]
        for namespace, role, arm_id, pulls, reward_sum, count, last in connection.execute(query)
    }


def _write_totals(
    connection: Connection, insert: Any, totals: Mapping[StatisticsKey, list[Any]]
) -> None:
    statement = insert(STATISTICS)
    statement = statement.on_conflict_do_update(
        index_elements=[STATISTICS.c.namespace, STATISTICS.c.role, STATISTICS.c.arm_id],
        set_={
            name: statement.excluded[name]
            for name in ("pulls", "reward_sum", "outcome_count", "last_seq")
        },
    )
    connection.execute(
        statement,
        [
            {
                "namespace": namespace,
                "role": role,
                "arm_id": arm_id,
                "pulls": pulls,
                "reward_sum": reward_sum,
                "outcome_count": count,
                "last_seq": last,
            }
            for (namespace, role, arm_id), (pulls, reward_sum, count, last) in totals.items()
        ],
    )


def _chunks(items: list[str]) -> Iterator[list[str]]:
    for start in range(0, len(items), CHUNK):
        yield items[start : start + CHUNK]
