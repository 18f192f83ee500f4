"""The SQL store: decisions, outcomes and arms in SQLite (default) or PostgreSQL, one code path.

Outcomes are the source of truth and append-only. Recording one is a single transaction that
takes the next seq of its decision's namespace (locking that namespace's counter row, which
serialises its writers and makes seqs follow commit order), appends the outcome and adds it to
its arms' statistics. A retry of the same (decision, source) returns the first receipt; another
value for it is an `OutcomeConflictError`. Nothing is half-written: a failure rolls back.

    store = SqlStore(default_store_url(home))
    store.save_decision(decision)
    receipt = store.record_outcome(OutcomeRecord(decision.decision_id, "checker", 1.0))
    for outcome in store.outcomes_since(decision.namespace, last_seq): ...
"""

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import select

from engine.adapters.store import (
    batch,
    checkpoint_rows,
    kind_rows,
    postgres_append,
    statistics,
    transfer,
)
from engine.adapters.store.codec import (
    arm_from_row,
    arm_row,
    decision_from_row,
    decision_row,
    utc,
)
from engine.adapters.store.connection import Durability, open_engines, translated_errors
from engine.adapters.store.driver import (
    RawStatement,
    RawTransactions,
    compile_raw,
    timestamp_binder,
)
from engine.adapters.store.group_commit import GroupCommit
from engine.adapters.store.outcome_reads import OutcomeReads
from engine.adapters.store.schema import prepare
from engine.adapters.store.statements import build_statements, count_statement, dialect_insert
from engine.adapters.store.statistics import ArmStatistics, RebuildReport
from engine.adapters.store.tables import ARMS, DECISIONS
from engine.adapters.store.validation import (
    check_arm,
    check_decision,
    check_outcome_values,
    placed_correction,
    replayed_receipt,
)
from engine.domain.evidence import takes_a_place, too_many_sources
from engine.domain.kinds import KindEvent
from engine.domain.records import (
    ArmRecord,
    CheckpointRecord,
    DecisionRecord,
    LearnedOutcome,
    OutcomeReceipt,
    OutcomeRecord,
)
from engine.errors import (
    StoreError,
    UnknownDecisionError,
)


class _LostRaceError(Exception):
    """Another writer recorded this (decision, source) between our lookup and our insert."""


class _StandingError(Exception):
    """A correction to the value that stands already: no new row (rolls the counter back)."""

    def __init__(self, receipt: OutcomeReceipt) -> None:
        super().__init__()
        self.receipt = receipt


class SqlStore:
    """Implements DecisionLog, OutcomeLog and ArmCatalog on a SQLite file or a PostgreSQL URL.

    Safe to share between threads and between processes; `close()` releases its connections.
    """

    def __init__(
        self,
        url: str,
        *,
        create: bool = True,
        durability: Durability = "normal",
        busy_timeout_s: float = 30.0,
    ) -> None:
        self._engines = open_engines(
            url, create=create, durability=durability, busy_timeout_s=busy_timeout_s
        )
        self.label = self._engines.label
        self.dialect = self._engines.dialect
        self._statements = build_statements(self.dialect)
        self._insert = dialect_insert(self.dialect)
        writer = self._engines.writer
        sqlite = self.dialect == "sqlite"
        begin = "BEGIN IMMEDIATE" if sqlite else None
        self._raw = RawTransactions(writer, begin, per_thread=sqlite)
        self._raw_reader = RawTransactions(self._engines.reader, None, per_thread=sqlite)
        self._reads = OutcomeReads(writer)
        self._lookup = compile_raw(self._statements.lookup, writer)
        self._next_seq = compile_raw(self._statements.next_seq, writer)
        self._client_sources = compile_raw(self._statements.client_sources, writer)
        self._append_outcome = compile_raw(self._statements.append, writer)
        self._counts: dict[int, RawStatement] = {}  # by number of roles, compiled on first use
        self._parsed_choices: dict[str, list[tuple[str, str]]] = {}
        self._save_decision = compile_raw(self._statements.save_decision, writer)
        self._timestamp = timestamp_binder(writer)
        self._batch = batch.build_batch_statements(writer, self.dialect)
        # SQLite's default durability flushes nothing per commit, so grouping would only add
        # waiting; PostgreSQL's commit waits for a WAL flush, which grouping shares.
        self._group = GroupCommit(self._record_one, self._record_group) if not sqlite else None
        try:
            with self._guard("open the store"), self._engines.writer.begin() as connection:
                self.schema_version = prepare(connection, self.dialect, self.label, create=create)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Release every connection; the store object is unusable afterwards."""
        for transactions in ("_raw", "_raw_reader"):
            if hasattr(self, transactions):
                getattr(self, transactions).close()
        self._engines.writer.dispose()
        self._engines.reader.dispose()

    def __enter__(self) -> "SqlStore":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # -- DecisionLog ---------------------------------------------------------------------------

    def save_decision(self, decision: DecisionRecord) -> None:
        """Store a decision; saving the same decision again is a no-op, a changed one an error."""
        check_decision(decision)
        row = decision_row(decision)
        parameters = self._save_decision.bind(
            {**row, "created_at": self._timestamp(row["created_at"])}
        )
        with self._guard("save a decision"), self._raw.transaction() as cursor:
            cursor.execute(self._save_decision.sql, parameters)
            if cursor.fetchone() is not None:
                return
        self.save_decisions([decision])  # there already: same (no-op) or changed (an error)

    def save_decisions(self, decisions: Sequence[DecisionRecord]) -> int:
        """Store many decisions in one transaction (all or none); return how many were new."""
        for decision in decisions:
            check_decision(decision)
        rows = [decision_row(decision) for decision in decisions]
        with self._guard("save decisions"), self._raw.transaction() as cursor:
            return batch.save_decision_rows(cursor, self._batch, rows)

    def get_decision(self, decision_id: str) -> DecisionRecord:
        """The stored decision; `UnknownDecisionError` when there is none."""
        query = select(DECISIONS).where(DECISIONS.c.decision_id == decision_id)
        with self._guard("read a decision"), self._engines.reader.begin() as connection:
            row = connection.execute(query).mappings().first()
        if row is None:
            raise UnknownDecisionError(f"no decision with id {decision_id!r}")
        return decision_from_row(row)

    # -- OutcomeLog ----------------------------------------------------------------------------

    def record_outcome(self, outcome: OutcomeRecord) -> OutcomeReceipt:
        """Append an outcome durably and idempotently and count it in its arms' statistics.

        On PostgreSQL, outcomes that threads post at the same moment share one transaction
        (`group_commit`): one WAL flush for all of them, each poster its own receipt or error.
        """
        check_outcome_values(outcome)
        if self._group is not None:
            return self._group.record(outcome)
        return self._record_one(outcome)

    def _record_one(self, outcome: OutcomeRecord) -> OutcomeReceipt:
        created_at = self._timestamp(utc(outcome.created_at or datetime.now(UTC)))
        key = {"decision_id": outcome.decision_id, "source": outcome.source}
        with self._guard("record an outcome"):
            if self.dialect == "postgresql":
                receipt = self._append_in_one_round_trip(outcome, key, created_at)
                if receipt is not None:
                    return receipt
            try:
                with self._raw.transaction() as cursor:
                    return self._append(cursor, outcome, key, created_at)
            except _StandingError as standing:
                return standing.receipt
            except _LostRaceError:  # a plain outcome's: a correction chooses its key locked
                with self._raw.transaction() as cursor:
                    cursor.execute(self._lookup.sql, self._lookup.bind(key))
                    return _replayed(outcome, cursor.fetchone())

    def _append_in_one_round_trip(
        self, outcome: OutcomeRecord, key: Mapping[str, str], created_at: Any
    ) -> OutcomeReceipt | None:
        """PostgreSQL's fast path; None when the portable path must decide (see the module)."""
        parameters = {
            **key,
            "reward": outcome.reward,
            "weight": outcome.weight,
            "reward_sum": outcome.weight * outcome.reward,
            "created_at": created_at,
            "max_sources": outcome.max_sources,
            "max_revisions": outcome.max_revisions,
        }
        with self._raw.autocommitted() as cursor:
            return postgres_append.receipt_of(outcome, postgres_append.append(cursor, parameters))

    def _append(
        self, cursor: Any, outcome: OutcomeRecord, key: Mapping[str, str], created_at: Any
    ) -> OutcomeReceipt:
        cursor.execute(self._lookup.sql, self._lookup.bind(key))
        found = cursor.fetchone()
        if found is None:
            raise UnknownDecisionError(f"no decision with id {outcome.decision_id!r}")
        namespace, choices, seq = found[0], found[1], found[2]
        if seq is not None and outcome.max_revisions is None:
            return _replayed(outcome, found)
        cursor.execute(self._next_seq.sql, self._next_seq.bind({"namespace": namespace}))
        (seq,) = cursor.fetchone()
        revision = 0
        if outcome.max_revisions is not None:  # a correction: its key, read with the counter held
            outcome, revision = self._place_correction(cursor, outcome)
            key = {"decision_id": outcome.decision_id, "source": outcome.source}
        if outcome.max_sources is not None and takes_a_place(outcome.source):
            # Counted with the counter row locked (on SQLite the whole file): on PostgreSQL this
            # statement's snapshot sees every writer of the namespace that committed before.
            cursor.execute(self._client_sources.sql, self._client_sources.bind(key))
            (clients,) = cursor.fetchone()
            if clients >= outcome.max_sources:  # rolls back the counter bump
                raise too_many_sources(outcome.decision_id, clients, outcome.source)
        cursor.execute(
            self._append_outcome.sql,
            self._append_outcome.bind(
                {
                    **key,
                    "namespace": namespace,
                    "seq": seq,
                    "reward": outcome.reward,
                    "weight": outcome.weight,
                    "created_at": created_at,
                }
            ),
        )
        if cursor.fetchone() is None:
            raise _LostRaceError  # rolls back the counter too, so no seq is skipped
        roles = self._roles(choices)
        if roles:
            count = self._counts.get(len(roles))
            if count is None:
                statement = count_statement(self.dialect, len(roles))
                count = self._counts[len(roles)] = compile_raw(statement, self._engines.writer)
            parameters = {
                "namespace": namespace,
                "pulls": outcome.weight,
                "reward_sum": outcome.weight * outcome.reward,
                "last_seq": seq,
            }
            for index, (role, arm_id) in enumerate(roles):
                parameters[f"role_{index}"] = role
                parameters[f"arm_{index}"] = arm_id
            cursor.execute(count.sql, count.bind(parameters))
        return OutcomeReceipt(seq=seq, applied=True, revision=revision)

    def _place_correction(self, cursor: Any, outcome: OutcomeRecord) -> tuple[OutcomeRecord, int]:
        """A correction at its source's next revision (`placed_correction`), or `_StandingError`."""
        stored = batch.stored_outcomes(cursor, self._batch, [outcome])
        placed = placed_correction(outcome, [(key[1], *value) for key, value in stored.items()])
        if isinstance(placed, OutcomeReceipt):
            raise _StandingError(placed)
        return placed

    def _roles(self, choices: str) -> list[tuple[str, str]]:
        """A decision's (role, arm) pairs from its JSON choices, cached: decisions share few."""
        roles = self._parsed_choices.get(choices)
        if roles is None:
            roles = sorted(statistics.choices_of(choices).items())
            if len(self._parsed_choices) < 4_096:
                self._parsed_choices[choices] = roles
        return roles

    def record_outcomes(self, outcomes: Sequence[OutcomeRecord]) -> list[OutcomeReceipt]:
        """Record many outcomes in one transaction (all or none): the bulk-import path.

        Same semantics as `record_outcome` one by one, in the given order, at a fraction of the
        cost: one lock and one disk flush for the whole batch.
        """
        for outcome in outcomes:
            check_outcome_values(outcome)
        now = datetime.now(UTC)
        with self._guard("record outcomes"), self._raw.transaction() as cursor:
            return batch.record_outcome_batch(cursor, self._batch, outcomes, now)

    def _record_group(self, outcomes: Sequence[OutcomeRecord]) -> list[OutcomeReceipt]:
        """A group commit's batch on PostgreSQL: in one statement where it can (see
        `postgres_append`), else as `record_outcomes`."""
        now = datetime.now(UTC)
        with self._guard("record outcomes"):
            try:
                with self._raw.autocommitted() as cursor:
                    receipts = postgres_append.append_many(cursor, outcomes, now)
            except postgres_append.StaleSnapshotError:
                with self._raw.transaction() as cursor:
                    receipts = postgres_append.append_many_locked(cursor, outcomes, now)
        if receipts is None:
            return self.record_outcomes(outcomes)
        return receipts

    def outcomes_since(
        self, namespace: str, after_seq: int, limit: int = 10_000
    ) -> list[LearnedOutcome]:
        """Outcomes of `namespace` with seq > `after_seq`, in seq order, at most `limit`."""
        if limit < 1:
            raise StoreError(f"limit must be at least 1, got {limit}")
        with self._guard("read outcomes"), self._raw_reader.reading() as cursor:
            return self._reads.since(cursor, namespace, after_seq, limit)

    def outcomes_of(self, *decision_ids: str, decision_fields: bool = True) -> list[LearnedOutcome]:
        """Every outcome of these decisions, in seq order (the (decision, source) index serves
        it). A hot path: the learner reads the earlier outcomes of each batch it replays (the
        evidence lives here, not in memory), in one statement per 256 decisions, and without
        `decision_fields` from the outcomes table alone (see `OutcomeLog.outcomes_of`)."""
        if not decision_ids:
            return []
        with self._guard("read decisions' outcomes"), self._raw_reader.reading() as cursor:
            return self._reads.of(cursor, decision_ids, decision_fields=decision_fields)

    # -- ArmCatalog ----------------------------------------------------------------------------

    def save_arm(self, arm: ArmRecord) -> None:
        """Insert an arm or update it (retire it, revise its definition)."""
        check_arm(arm)
        with self._guard("save an arm"), self._engines.writer.begin() as connection:
            batch.save_arm_row(connection, self._insert, arm_row(arm))

    def list_arms(self, namespace: str) -> list[ArmRecord]:
        """Every arm of `namespace`, retired ones included, by role then arm id."""
        query = (
            select(ARMS).where(ARMS.c.namespace == namespace).order_by(ARMS.c.role, ARMS.c.arm_id)
        )
        with self._guard("list arms"), self._engines.reader.begin() as connection:
            return [arm_from_row(row) for row in connection.execute(query).mappings()]

    # -- CheckpointLog -------------------------------------------------------------------------

    def save_checkpoint(self, checkpoint: CheckpointRecord) -> None:
        """Keep a learner checkpoint (the same seq twice: the first stays); prune older ones."""
        with self._guard("save a checkpoint"), self._engines.writer.begin() as connection:
            checkpoint_rows.save(connection, self._insert, checkpoint)

    def latest_checkpoint(self, namespace: str, fingerprint: str) -> CheckpointRecord | None:
        """The newest checkpoint of this configuration, or None."""
        with self._guard("read a checkpoint"), self._engines.reader.begin() as connection:
            return checkpoint_rows.latest(connection, namespace, fingerprint)

    # -- KindLog ---------------------------------------------------------------------------------

    def append_kind_event(self, event: KindEvent) -> bool:
        """Append a kind event at its seq; False when another writer took that seq."""
        with self._guard("add a kind"), self._engines.writer.begin() as connection:
            return kind_rows.append(connection, self._insert, event)

    def kind_events_since(self, namespace: str, after_seq: int) -> list[KindEvent]:
        with self._guard("read kinds"), self._engines.reader.begin() as connection:
            return kind_rows.since(connection, namespace, after_seq)

    def kind_sizes(self, namespace: str) -> dict[str, int]:
        with self._guard("count kinds"), self._engines.reader.begin() as connection:
            return kind_rows.sizes(connection, namespace)

    # -- administration ------------------------------------------------------------------------

    def arm_statistics(self, namespace: str | None = None) -> list[ArmStatistics]:
        """The live sufficient statistics, of one namespace or of all."""
        with self._guard("read statistics"), self._engines.reader.begin() as connection:
            return statistics.read(connection, namespace)

    def rebuild_statistics(self) -> RebuildReport:
        """Recompute every statistic from the outcomes, replace the live ones, report mismatches."""
        with self._guard("rebuild statistics"), self._engines.writer.begin() as connection:
            return statistics.rebuild(connection, self.dialect)

    def export_jsonl(self, path: Path) -> transfer.TransferCounts:
        """Write the whole learning state (arms, decisions, outcomes) to a JSON-lines file."""
        reader = self._engines.reader
        if self.dialect == "postgresql":  # one snapshot for every table, as SQLite's BEGIN gives
            reader = reader.execution_options(isolation_level="REPEATABLE READ")
        with (
            self._guard("export the store"),
            reader.begin() as connection,
            transfer.open_for_export(path) as out,
        ):
            return transfer.export_lines(connection, out, self.schema_version)

    def import_jsonl(self, path: Path) -> transfer.TransferCounts:
        """Import a JSON-lines export, all or nothing; importing it again changes nothing."""
        transfer.check_file(path)  # a malformed line fails before the write lock is taken
        with self._guard("import into the store"), self._engines.writer.begin() as connection:
            return transfer.import_lines(connection, self._batch, self._insert, path)

    def _guard(self, action: str) -> AbstractContextManager[None]:
        return translated_errors(self.label, action)


def _replayed(outcome: OutcomeRecord, found: Sequence[Any]) -> OutcomeReceipt:
    """The receipt of an outcome recorded before; `found` is a lookup row."""
    _, _, seq, reward, weight = found
    return replayed_receipt(outcome, seq, reward, weight)
