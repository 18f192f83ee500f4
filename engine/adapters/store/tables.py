"""The store's SQLModel tables: the only place where ThinkPath's learning state has rows.

Nothing outside `engine.adapters.store` imports this module; the core sees frozen records from
`engine.domain.records`. JSON columns are plain text that `engine.adapters.store.codec` writes with
sorted keys, so equal records give equal bytes on SQLite and PostgreSQL alike (idempotence
compares them).

Schema version 5 (version 1 lacked `checkpoints`, version 2 `kind_events` and `decisions.kind`,
version 3 `decisions.seconds`, version 4 `decisions.prompt_tokens` and `completion_tokens`):

    thinkpath_meta      key/value: application name, schema version, store id
    decisions           one row per decision, immutable once written
    outcomes            append-only; (namespace, seq) is the learning order,
                        (decision_id, source) the idempotence key
    namespace_counters  the last seq given out per namespace; writers of one namespace lock
                        this row, which serialises them and makes seqs follow commit order
    arm_statistics      sufficient statistics per (namespace, role, arm), updated in the
                        outcome's own transaction; a rebuild recomputes them from the outcomes
    arms                the arm catalogue: templates, generated detours (and their retirement),
                        tools
    checkpoints         learner state as of a seq, per (namespace, configuration fingerprint):
                        a cache of the outcomes up to that seq, so start-up replays only the rest
    kind_events         the kinds of query per namespace, an append-only log: (namespace, seq)
                        is its order, and a writer that finds its seq taken reads it again
"""

from datetime import datetime

from sqlalchemy import Column, DateTime, ForeignKey, Index, Table, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

SCHEMA_VERSION = 5
APPLICATION = "thinkpath"

# Small rows looked up by their key: on SQLite, storing them in their primary-key tree (no
# separate rowid tree) leaves fewer pages for each outcome's commit to write to the WAL.
# PostgreSQL ignores the option.
WITHOUT_ROWID = {"sqlite_with_rowid": False}


def _timestamp(*, nullable: bool = False) -> Column[datetime]:
    """A timezone-aware timestamp (SQLite keeps the UTC wall clock; the codec adds UTC back)."""
    return Column(DateTime(timezone=True), nullable=nullable)


class MetaRow(SQLModel, table=True):
    __tablename__ = "thinkpath_meta"

    key: str = Field(primary_key=True, max_length=64)
    value: str = Field(sa_type=Text)


class DecisionRow(SQLModel, table=True):
    __tablename__ = "decisions"
    __table_args__ = (Index("ix_decisions_namespace_created", "namespace", "created_at"),)

    decision_id: str = Field(primary_key=True, max_length=128)
    namespace: str = Field(max_length=128)
    created_at: datetime = Field(sa_column=_timestamp())
    query: str = Field(sa_type=Text)
    context: str | None = Field(default=None, sa_type=Text)  # JSON list of floats
    choices: str = Field(sa_type=Text)  # JSON object role -> arm
    propensities: str = Field(sa_type=Text)  # JSON object role -> probability
    payload: str = Field(sa_type=Text)  # JSON object: candidates, trace, cost, answer
    kind: str | None = Field(default=None, max_length=128)  # the kind of query it was made for
    # The model seconds it spent (also in the payload): the replay that teaches the policies
    # reads it, to charge each path its measured time at the draw (`pricing.DrawPrice`).
    seconds: float | None = Field(default=None)
    # Its tokens (also in the payload): with the seconds, each model's speed, which the model
    # draw charges (`engine.orchestration.model_seconds`).
    prompt_tokens: int | None = Field(default=None)
    completion_tokens: int | None = Field(default=None)


class OutcomeRow(SQLModel, table=True):
    __tablename__ = "outcomes"
    __table_args__ = (
        UniqueConstraint("decision_id", "source", name="uq_outcomes_decision_source"),
        WITHOUT_ROWID,
    )

    namespace: str = Field(primary_key=True, max_length=128)
    seq: int = Field(primary_key=True)
    decision_id: str = Field(
        sa_column=Column(Text, ForeignKey("decisions.decision_id"), nullable=False)
    )
    source: str = Field(max_length=64)
    reward: float
    weight: float
    created_at: datetime = Field(sa_column=_timestamp())


class NamespaceCounterRow(SQLModel, table=True):
    __tablename__ = "namespace_counters"
    __table_args__ = (WITHOUT_ROWID,)

    namespace: str = Field(primary_key=True, max_length=128)
    last_seq: int


class ArmStatisticsRow(SQLModel, table=True):
    __tablename__ = "arm_statistics"
    __table_args__ = (WITHOUT_ROWID,)

    namespace: str = Field(primary_key=True, max_length=128)
    role: str = Field(primary_key=True, max_length=64)
    arm_id: str = Field(primary_key=True, max_length=256)
    pulls: float  # effective pulls: the sum of the outcomes' weights
    reward_sum: float  # the sum of weight * reward
    outcome_count: int  # outcomes counted, whatever their weight
    last_seq: int  # the seq of the last outcome counted


class ArmRow(SQLModel, table=True):
    __tablename__ = "arms"

    namespace: str = Field(primary_key=True, max_length=128)
    role: str = Field(primary_key=True, max_length=64)
    arm_id: str = Field(primary_key=True, max_length=256)
    origin: str = Field(max_length=16)
    definition: str = Field(sa_type=Text)  # JSON object
    created_at: datetime = Field(sa_column=_timestamp())
    retired_at: datetime | None = Field(default=None, sa_column=_timestamp(nullable=True))
    retired_reason: str | None = Field(default=None, sa_type=Text)


class CheckpointRow(SQLModel, table=True):
    __tablename__ = "checkpoints"

    namespace: str = Field(primary_key=True, max_length=128)
    fingerprint: str = Field(primary_key=True, max_length=64)
    seq: int = Field(primary_key=True)
    state: str = Field(sa_type=Text)  # JSON object: policies, tallies, retirements, windows
    created_at: datetime = Field(sa_column=_timestamp())


class KindEventRow(SQLModel, table=True):
    __tablename__ = "kind_events"

    namespace: str = Field(primary_key=True, max_length=128)
    seq: int = Field(primary_key=True)
    kind_id: str = Field(max_length=128)
    action: str = Field(max_length=16)  # "create", "rename", "member", "space" or "fade"
    origin: str = Field(max_length=16)  # "task" or "discovered"
    name: str | None = Field(default=None, max_length=128)
    anchor: str | None = Field(default=None, sa_type=Text)  # JSON list of floats ("create")
    example: str = Field(sa_type=Text)
    created_at: datetime = Field(sa_column=_timestamp())


def table(model: type[SQLModel]) -> Table:
    """The Core table behind a SQLModel class (typed, for statements built in the adapter)."""
    result = model.__table__  # type: ignore[attr-defined]
    assert isinstance(result, Table)
    return result


META = table(MetaRow)
DECISIONS = table(DecisionRow)
OUTCOMES = table(OutcomeRow)
COUNTERS = table(NamespaceCounterRow)
STATISTICS = table(ArmStatisticsRow)
ARMS = table(ArmRow)
CHECKPOINTS = table(CheckpointRow)
KIND_EVENTS = table(KindEventRow)
ALL_TABLES = (META, DECISIONS, OUTCOMES, COUNTERS, STATISTICS, ARMS, CHECKPOINTS, KIND_EVENTS)
