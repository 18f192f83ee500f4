"""Learner checkpoints as rows: written by any replica at once, the newest kept, older pruned.

A checkpoint is a cache of the outcome log up to its seq, like the arm statistics: losing one
costs a longer replay, never a wrong answer. So two replicas that checkpoint the same seq do not
fight: the first row stays (`ON CONFLICT DO NOTHING`) and the second writer moves on, because
their states describe the same outcomes. Only the newest `KEEP` rows of a configuration stay.
"""

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, delete, func, select

from engine.adapters.store.codec import from_json, to_json, utc
from engine.adapters.store.tables import CHECKPOINTS, COUNTERS
from engine.adapters.store.validation import check_checkpoint, check_checkpoint_seq
from engine.domain.records import CheckpointRecord

# The newest checkpoint is the one read; one more survives so that a reader who chose a row a
# moment before a writer pruned it still finds it.
KEEP = 2


def save(connection: Connection, insert: Any, checkpoint: CheckpointRecord) -> None:
    """Insert `checkpoint` unless its (namespace, fingerprint, seq) is there; prune old ones."""
    check_checkpoint(checkpoint)
    state = to_json(dict(checkpoint.state), "checkpoint state")
    last_seq = connection.execute(
        select(COUNTERS.c.last_seq).where(COUNTERS.c.namespace == checkpoint.namespace)
    ).scalar()
    check_checkpoint_seq(checkpoint, int(last_seq or 0))
    row = {
        "namespace": checkpoint.namespace,
        "fingerprint": checkpoint.fingerprint,
        "seq": checkpoint.seq,
        "state": state,
        "created_at": utc(checkpoint.created_at or datetime.now(UTC)),
    }
    connection.execute(insert(CHECKPOINTS).values(row).on_conflict_do_nothing())
    same = (CHECKPOINTS.c.namespace == checkpoint.namespace) & (
        CHECKPOINTS.c.fingerprint == checkpoint.fingerprint
    )
    newest = select(CHECKPOINTS.c.seq).where(same).order_by(CHECKPOINTS.c.seq.desc()).limit(KEEP)
    oldest_kept = select(func.min(newest.subquery().c.seq)).scalar_subquery()
    connection.execute(delete(CHECKPOINTS).where(same, CHECKPOINTS.c.seq < oldest_kept))


def latest(connection: Connection, namespace: str, fingerprint: str) -> CheckpointRecord | None:
    """The newest checkpoint of (namespace, fingerprint), or None."""
    row = (
        connection.execute(
            select(CHECKPOINTS)
            .where(CHECKPOINTS.c.namespace == namespace, CHECKPOINTS.c.fingerprint == fingerprint)
            .order_by(CHECKPOINTS.c.seq.desc())
            .limit(1)
        )
        .mappings()
        .first()
    )
    if row is None:
        return None
    return CheckpointRecord(
        namespace=row["namespace"],
        fingerprint=row["fingerprint"],
        seq=row["seq"],
        state=from_json(row["state"]),
        created_at=utc(row["created_at"]),
    )
