"""The kind log as rows: appended at the seq after the last one its writer read, read in order.

Two replicas that create a kind at once both insert at the same (namespace, seq); the primary
key keeps the first (`ON CONFLICT DO NOTHING`) and the second learns from the row count that it
lost, reads the log again and assigns its query afresh (`engine.orchestration.kind_book`).
"""

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, func, select

from engine.adapters.store.codec import from_json, to_json
from engine.adapters.store.tables import DECISIONS, KIND_EVENTS
from engine.adapters.store.validation import check_kind_event
from engine.domain.kinds import KindEvent


def append(connection: Connection, insert: Any, event: KindEvent) -> bool:
    """Insert `event` unless its (namespace, seq) is taken; True when it was inserted."""
    check_kind_event(event)
    if event.seq > 1:  # no gap: the event before it must be there
        before = connection.execute(
            select(KIND_EVENTS.c.seq).where(
                KIND_EVENTS.c.namespace == event.namespace, KIND_EVENTS.c.seq == event.seq - 1
            )
        ).first()
        if before is None:
            return False
    row = {
        "namespace": event.namespace,
        "seq": event.seq,
        "kind_id": event.kind_id,
        "action": event.action,
        "origin": event.origin,
        "name": event.name,
        "anchor": None if event.anchor is None else to_json(list(event.anchor), "kind anchor"),
        "example": event.example,
        "created_at": datetime.now(UTC),
    }
    # RETURNING, not the row count: a driver may report -1 for a statement it did not count.
    statement = insert(KIND_EVENTS).values(row).on_conflict_do_nothing()
    return connection.execute(statement.returning(KIND_EVENTS.c.seq)).first() is not None


def since(connection: Connection, namespace: str, after_seq: int) -> list[KindEvent]:
    """The namespace's kind events after `after_seq`, in seq order."""
    rows = connection.execute(
        select(KIND_EVENTS)
        .where(KIND_EVENTS.c.namespace == namespace, KIND_EVENTS.c.seq > after_seq)
        .order_by(KIND_EVENTS.c.seq)
    ).mappings()
    return [
        KindEvent(
            namespace=row["namespace"],
            seq=row["seq"],
            kind_id=row["kind_id"],
            action=row["action"],
            origin=row["origin"],
            name=row["name"],
            anchor=None
            if row["anchor"] is None
            else tuple(float(x) for x in from_json(row["anchor"])),
            example=row["example"],
        )
        for row in rows
    ]


def sizes(connection: Connection, namespace: str) -> dict[str, int]:
    """Stored decisions per kind of the namespace."""
    rows = connection.execute(
        select(DECISIONS.c.kind, func.count())
        .where(DECISIONS.c.namespace == namespace, DECISIONS.c.kind.is_not(None))
        .group_by(DECISIONS.c.kind)
    ).all()
    return {str(kind): int(count) for kind, count in rows}
