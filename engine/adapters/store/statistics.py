"""Sufficient statistics per (namespace, role, arm): read them, or rebuild them from the outcomes.

The live statistics are a cache that each outcome's transaction updates. A rebuild replays every
outcome in seq order, accumulating exactly as the live path does (`0.0 + w`, then `+ w`, ...), so
a healthy store agrees to the last bit, not merely within a tolerance; any difference found is
reported and the rebuilt value replaces the live one.
"""

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, delete, select

from engine.adapters.store.tables import CHECKPOINTS, DECISIONS, OUTCOMES, STATISTICS
from engine.domain.records import ArmTally


@dataclass(frozen=True)
class ArmStatistics:
    """One arm's cached tally (the learner's `ArmTally`), and the last outcome it counts."""

    namespace: str
    role: str
    arm_id: str
    tally: ArmTally
    last_seq: int


@dataclass(frozen=True)
class RebuildReport:
    """What a rebuild found: how many rows it wrote and which live rows disagreed."""

    outcomes: int
    rows: int
    mismatches: tuple[tuple[ArmStatistics | None, ArmStatistics | None], ...]  # (live, rebuilt)
    checkpoints_dropped: int = 0  # learner checkpoints removed: the next start replays the log

    @property
    def agrees(self) -> bool:
        """True when every live statistic equalled its rebuilt value."""
        return not self.mismatches


def choices_of(text: str) -> dict[str, str]:
    """A decision's choices (role -> arm) from its JSON column."""
    choices = json.loads(text)
    assert isinstance(choices, dict)
    return choices


def read(connection: Connection, namespace: str | None) -> list[ArmStatistics]:
    """The live statistics of one namespace (or all), ordered by namespace, role and arm."""
    query = select(STATISTICS).order_by(
        STATISTICS.c.namespace, STATISTICS.c.role, STATISTICS.c.arm_id
    )
    if namespace is not None:
        query = query.where(STATISTICS.c.namespace == namespace)
    return [_from_row(row) for row in connection.execute(query).mappings()]


def recompute(connection: Connection) -> tuple[int, dict[tuple[str, str, str], ArmStatistics]]:
    """Every statistic recomputed from the outcomes, and how many outcomes were read."""
    query = (
        select(
            OUTCOMES.c.namespace,
            OUTCOMES.c.seq,
            OUTCOMES.c.reward,
            OUTCOMES.c.weight,
            DECISIONS.c.choices,
        )
        .join(DECISIONS, DECISIONS.c.decision_id == OUTCOMES.c.decision_id)
        .order_by(OUTCOMES.c.namespace, OUTCOMES.c.seq)
    )
    totals: dict[tuple[str, str, str], tuple[ArmTally, int]] = {}
    count = 0
    # per statement: Connection.execution_options() would change the connection itself
    result = connection.execute(query, execution_options={"yield_per": 5_000})
    for namespace, seq, reward, weight, choices in result:
        count += 1
        for role, arm_id in sorted(choices_of(choices).items()):
            tally, _ = totals.get((namespace, role, arm_id), (ArmTally(), 0))
            totals[(namespace, role, arm_id)] = (tally.plus(reward, weight), seq)
    return count, {
        key: ArmStatistics(*key, tally, last_seq) for key, (tally, last_seq) in totals.items()
    }


def rebuild(connection: Connection, dialect: str) -> RebuildReport:
    """Replace the live statistics with ones recomputed from the outcomes (caller's transaction)."""
    if dialect == "postgresql":
        # Writers append to `outcomes`; SHARE mode waits for them and holds new ones back until
        # the rebuild commits, so it sees a frozen log (SQLite's BEGIN IMMEDIATE already does).
        connection.exec_driver_sql(f"LOCK TABLE {OUTCOMES.name} IN SHARE MODE")
    live = {(s.namespace, s.role, s.arm_id): s for s in read(connection, None)}
    count, rebuilt = recompute(connection)
    mismatches = tuple(
        (live.get(key), rebuilt.get(key))
        for key in sorted(live.keys() | rebuilt.keys())
        if live.get(key) != rebuilt.get(key)
    )
    if mismatches:
        connection.execute(delete(STATISTICS))
        if rebuilt:
            connection.execute(STATISTICS.insert(), [_to_row(stat) for stat in rebuilt.values()])
    # Checkpoints are the other cache of the log: a rebuild drops them, so that every engine's
    # next start replays the whole log, and nothing learned survives that the log does not hold.
    dropped = connection.execute(delete(CHECKPOINTS)).rowcount
    return RebuildReport(
        outcomes=count, rows=len(rebuilt), mismatches=mismatches, checkpoints_dropped=dropped
    )


def _from_row(row: Mapping[Any, Any]) -> ArmStatistics:
    return ArmStatistics(
        namespace=row["namespace"],
        role=row["role"],
        arm_id=row["arm_id"],
        tally=ArmTally(row["pulls"], row["reward_sum"], row["outcome_count"]),
        last_seq=row["last_seq"],
    )


def _to_row(stat: ArmStatistics) -> dict[str, Any]:
    return {
        "namespace": stat.namespace,
        "role": stat.role,
        "arm_id": stat.arm_id,
        "pulls": stat.tally.pulls,
        "reward_sum": stat.tally.reward_sum,
        "outcome_count": stat.tally.outcomes,
        "last_seq": stat.last_seq,
    }
