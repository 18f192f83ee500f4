"""Export the whole learning state as JSON lines, and import such a file into a store.

One object per line, each with a "kind": first a "header", then every "arm", every "decision",
and every "outcome" in seq order per namespace. Statistics are not exported: they follow from
the outcomes, and an import recomputes them through the normal recording path. Importing a file
into an empty store reproduces every seq; importing the same file twice changes nothing (the
store's idempotence). An import is one transaction: a malformed line (named by its number) or a
record that conflicts with the store leaves the store exactly as it was.
"""

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from sqlalchemy import Connection, select

from engine.adapters.store import batch
from engine.adapters.store.codec import arm_from_row, arm_row, decision_from_row, decision_row, utc
from engine.adapters.store.tables import ARMS, DECISIONS, OUTCOMES
from engine.adapters.store.validation import check_arm, check_decision, check_outcome_values
from engine.domain.records import ArmRecord, DecisionRecord, OutcomeRecord
from engine.errors import StoreError

FORMAT = "thinkpath-store"
FORMAT_VERSION = 1
BATCH = 5_000

Record = ArmRecord | DecisionRecord | OutcomeRecord


@dataclass(frozen=True)
class TransferCounts:
    """How many records an export wrote or an import read, and how many of those were new."""

    arms: int = 0
    decisions: int = 0
    outcomes: int = 0
    new_decisions: int = 0
    new_outcomes: int = 0


@contextmanager
def open_for_export(path: Path) -> Iterator[TextIO]:
    """Open `path` for writing; a clear `StoreError` when that is impossible."""
    try:
        with path.open("w", encoding="utf-8") as out:
            yield out
    except OSError as error:
        raise StoreError(f"cannot write the export to {path}: {error}") from None


def export_lines(connection: Connection, out: TextIO, schema_version: int) -> TransferCounts:
    """Write every arm, decision and outcome readable through `connection` to `out`."""
    header = {
        "kind": "header",
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "schema_version": schema_version,
        "exported_at": datetime.now(UTC).isoformat(),
    }
    out.write(_line(header))
    streaming = {"yield_per": BATCH}  # per statement: never change the connection's options
    arms = decisions = outcomes = 0
    query = select(ARMS).order_by(ARMS.c.namespace, ARMS.c.role, ARMS.c.arm_id)
    for row in connection.execute(query, execution_options=streaming).mappings():
        arm = arm_from_row(row)
        out.write(_line({"kind": "arm", **_arm_fields(arm)}))
        arms += 1
    query = select(DECISIONS).order_by(DECISIONS.c.created_at, DECISIONS.c.decision_id)
    for row in connection.execute(query, execution_options=streaming).mappings():
        decision = decision_from_row(row)
        out.write(_line({"kind": "decision", **_decision_fields(decision)}))
        decisions += 1
    query = select(OUTCOMES).order_by(OUTCOMES.c.namespace, OUTCOMES.c.seq)
    for row in connection.execute(query, execution_options=streaming).mappings():
        fields = {name: row[name] for name in ("namespace", "seq", "decision_id", "source")}
        moment = utc(row["created_at"]).isoformat()
        fields |= {"reward": row["reward"], "weight": row["weight"], "created_at": moment}
        out.write(_line({"kind": "outcome", **fields}))
        outcomes += 1
    return TransferCounts(arms=arms, decisions=decisions, outcomes=outcomes)


def read_lines(path: Path) -> Iterator[tuple[int, Record]]:
    """The records of an export file with their line numbers, checked line by line."""
    try:
        with path.open(encoding="utf-8") as lines:
            first = lines.readline()
            _check_header(path, first)
            for number, line in enumerate(lines, start=2):
                if line.strip():
                    yield number, _record(path, number, line)
    except OSError as error:
        raise StoreError(f"cannot read the export {path}: {error}") from None


def check_file(path: Path) -> None:
    """Read a whole export file, raising `StoreError` at its first malformed line."""
    for _ in read_lines(path):
        pass


def import_lines(
    connection: Connection, statements: batch.BatchStatements, insert: Any, path: Path
) -> TransferCounts:
    """Import an export file inside the caller's transaction, in batches of `BATCH` records."""
    cursor = connection.connection.cursor()  # the driver's, inside the same transaction
    now = datetime.now(UTC)
    arms = 0
    decisions: list[DecisionRecord] = []
    outcomes: list[OutcomeRecord] = []
    counts = {"decisions": 0, "outcomes": 0, "new_decisions": 0, "new_outcomes": 0}

    def flush_decisions() -> None:
        for decision in decisions:
            check_decision(decision)
        rows = [decision_row(decision) for decision in decisions]
        counts["decisions"] += len(rows)
        counts["new_decisions"] += batch.save_decision_rows(cursor, statements, rows)
        decisions.clear()

    def flush_outcomes() -> None:
        flush_decisions()  # an outcome's decision must be stored first
        for outcome in outcomes:
            check_outcome_values(outcome)
        receipts = batch.record_outcome_batch(cursor, statements, outcomes, now)
        counts["outcomes"] += len(outcomes)
        counts["new_outcomes"] += sum(receipt.applied for receipt in receipts)
        outcomes.clear()

    for _, record in read_lines(path):
        if isinstance(record, ArmRecord):
            check_arm(record)
            batch.save_arm_row(connection, insert, arm_row(record))
            arms += 1
        elif isinstance(record, DecisionRecord):
            decisions.append(record)
            if len(decisions) >= BATCH:
                flush_decisions()
        else:
            outcomes.append(record)
            if len(outcomes) >= BATCH:
                flush_outcomes()
    flush_outcomes()
    return TransferCounts(arms=arms, **counts)


def _check_header(path: Path, first: str) -> None:
    try:
        header = json.loads(first)
    except json.JSONDecodeError:
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise StoreError(f"{path}: line 1 is not a ThinkPath store export header")
    version = header.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise StoreError(
            f"{path}: export format version {version!r} is newer than this ThinkPath reads "
            f"({FORMAT_VERSION})"
        )


def _record(path: Path, number: int, line: str) -> Record:
    try:
        fields = json.loads(line)
        kind = fields.pop("kind")
        if kind == "arm":
            return _arm(fields)
        if kind == "decision":
            return _decision(fields)
        if kind == "outcome":
            fields.pop("namespace")
            fields.pop("seq")
            return OutcomeRecord(**{**fields, "created_at": _moment(fields["created_at"])})
        raise ValueError(f"unknown kind {kind!r}")
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise StoreError(f"{path}: line {number} is not a valid record: {error!r}") from None


def _arm(fields: dict[str, Any]) -> ArmRecord:
    return ArmRecord(
        **{
            **fields,
            "created_at": _moment(fields["created_at"]),
            "retired_at": _moment(fields["retired_at"]),
        }
    )


def _decision(fields: dict[str, Any]) -> DecisionRecord:
    context = fields["context"]
    return DecisionRecord(
        **{
            **fields,
            "created_at": _moment(fields["created_at"]),
            "context": None if context is None else tuple(float(x) for x in context),
        }
    )


def _moment(text: str | None) -> Any:
    return None if text is None else datetime.fromisoformat(text)


def _arm_fields(arm: ArmRecord) -> dict[str, Any]:
    return {
        "namespace": arm.namespace,
        "role": arm.role,
        "arm_id": arm.arm_id,
        "origin": arm.origin,
        "definition": arm.definition,
        "created_at": arm.created_at.isoformat(),
        "retired_at": None if arm.retired_at is None else arm.retired_at.isoformat(),
        "retired_reason": arm.retired_reason,
    }


def _decision_fields(decision: DecisionRecord) -> dict[str, Any]:
    return {
        "decision_id": decision.decision_id,
        "namespace": decision.namespace,
        "created_at": decision.created_at.isoformat(),
        "query": decision.query,
        "context": None if decision.context is None else list(decision.context),
        "choices": dict(decision.choices),
        "propensities": dict(decision.propensities),
        "payload": dict(decision.payload),
    }


def _line(value: dict[str, Any]) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False) + "\n"
