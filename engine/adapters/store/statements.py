"""The SQL statements of the store's hot paths, built once per dialect and reused.

SQLAlchemy caches a statement's compiled form by its structure, so building these once keeps the
per-outcome cost to parameter binding and the driver round trips.
"""

from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Insert, Select, and_, bindparam, func, select
from sqlalchemy.dialects import postgresql, sqlite

from engine.adapters.store.tables import COUNTERS, DECISIONS, OUTCOMES, STATISTICS
from engine.domain.evidence import ENGINE_SOURCES


def dialect_insert(dialect: str) -> Any:
    """The dialect's INSERT construct, which has ON CONFLICT (both speak it the same way)."""
    return postgresql.insert if dialect == "postgresql" else sqlite.insert


@dataclass(frozen=True)
class Statements:
    """Prepared statements: look up, take the next seq, append, save a decision."""

    lookup: Select[Any]  # a decision and any outcome it already has from one source
    next_seq: Insert  # bump the namespace counter (locking its row) and return the new seq
    append: Insert  # the outcome, unless (decision, source) is there already
    save_decision: Insert  # a decision, unless its id is there already; returns the id if new
    client_sources: Select[Any]  # how many client sources a decision holds


def build_statements(dialect: str) -> Statements:
    """Build the hot-path statements for `dialect` ("sqlite" or "postgresql")."""
    insert = dialect_insert(dialect)
    lookup = (
        select(
            DECISIONS.c.namespace,
            DECISIONS.c.choices,
            OUTCOMES.c.seq,
            OUTCOMES.c.reward,
            OUTCOMES.c.weight,
        )
        .select_from(
            DECISIONS.outerjoin(
                OUTCOMES,
                and_(
                    OUTCOMES.c.decision_id == DECISIONS.c.decision_id,
                    OUTCOMES.c.source == bindparam("source"),
                ),
            )
        )
        .where(DECISIONS.c.decision_id == bindparam("decision_id"))
    )
    bump = insert(COUNTERS).values(namespace=bindparam("namespace"), last_seq=1)
    next_seq = bump.on_conflict_do_update(
        index_elements=[COUNTERS.c.namespace],
        set_={"last_seq": COUNTERS.c.last_seq + 1},
    ).returning(COUNTERS.c.last_seq)
    append = (
        insert(OUTCOMES)
        .on_conflict_do_nothing(index_elements=[OUTCOMES.c.decision_id, OUTCOMES.c.source])
        .returning(OUTCOMES.c.seq)
    )
    save_decision = insert(DECISIONS).on_conflict_do_nothing().returning(DECISIONS.c.decision_id)
    client_sources = select(func.count()).where(
        OUTCOMES.c.decision_id == bindparam("decision_id"), is_client_source(OUTCOMES.c.source)
    )
    return Statements(
        lookup=lookup,
        next_seq=next_seq,
        append=append,
        save_decision=save_decision,
        client_sources=client_sources,
    )


def is_client_source(source: Any) -> ColumnElement[bool]:
    """A stored key that is a client source's first score (`evidence.takes_a_place` in SQL; the
    PostgreSQL statements write it as `postgres_append._CLIENT`): a correction's key holds '#',
    which no source does, so each source is counted once."""
    return and_(~source.contains("#"), *(source != name for name in ENGINE_SOURCES))


def count_statement(dialect: str, roles: int) -> Insert:
    """Add one outcome to the statistics of the arms of `roles` roles, in one statement.

    Parameters: namespace, pulls (the weight), reward_sum (weight * reward), last_seq, and
    role_I, arm_I for each role I (one statement per role count: fewer round trips than an
    executemany, on the path that every outcome takes).
    """
    shared = {
        "namespace": bindparam("namespace"),
        "pulls": bindparam("pulls"),
        "reward_sum": bindparam("reward_sum"),
        "outcome_count": 1,
        "last_seq": bindparam("last_seq"),
    }
    add = dialect_insert(dialect)(STATISTICS).values(
        [
            {**shared, "role": bindparam(f"role_{i}"), "arm_id": bindparam(f"arm_{i}")}
            for i in range(roles)
        ]
    )
    result: Insert = add.on_conflict_do_update(
        index_elements=[STATISTICS.c.namespace, STATISTICS.c.role, STATISTICS.c.arm_id],
        set_={
            "pulls": STATISTICS.c.pulls + add.excluded.pulls,
            "reward_sum": STATISTICS.c.reward_sum + add.excluded.reward_sum,
            "outcome_count": STATISTICS.c.outcome_count + 1,
            "last_seq": add.excluded.last_seq,
        },
    )
    return result
