"""Translate the port's frozen records to table rows and back: JSON text and UTC timestamps.

JSON is written with sorted keys and no NaN, so one record always gives the same text: the SQL
store compares these texts to tell an idempotent replay from a conflict.
"""

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from engine.domain.records import ArmRecord, DecisionRecord
from engine.errors import StoreError


def to_json(value: object, what: str) -> str:
    """Canonical JSON text of `value`; a clear `StoreError` when it has no JSON form."""
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as error:
        raise StoreError(f"{what} cannot be stored as JSON: {error}") from None


def from_json(text: str) -> Any:
    """Parse JSON text written by `to_json`."""
    return json.loads(text)


def utc(moment: datetime) -> datetime:
    """The same moment in UTC; a naive datetime is taken to be UTC already."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def decision_row(decision: DecisionRecord) -> dict[str, Any]:
    """The `decisions` row of a decision."""
    what = f"decision {decision.decision_id!r}"
    tokens = decision.tokens
    return {
        "decision_id": decision.decision_id,
        "namespace": decision.namespace,
        "created_at": utc(decision.created_at),
        "query": decision.query,
        "context": None
        if decision.context is None
        else to_json([float(x) for x in decision.context], f"{what} context"),
        "choices": to_json(dict(decision.choices), f"{what} choices"),
        "propensities": to_json(
            {role: float(p) for role, p in decision.propensities.items()}, f"{what} propensities"
        ),
        "payload": to_json(dict(decision.payload), f"{what} payload"),
        "kind": decision.kind,
        "seconds": decision.seconds,
        "prompt_tokens": None if tokens is None else tokens[0],
        "completion_tokens": None if tokens is None else tokens[1],
    }


def decision_from_row(row: Mapping[Any, Any]) -> DecisionRecord:
    """A decision from its `decisions` row."""
    return DecisionRecord(
        decision_id=row["decision_id"],
        namespace=row["namespace"],
        created_at=utc(row["created_at"]),
        query=row["query"],
        context=context_from_json(row["context"]),
        choices=from_json(row["choices"]),
        propensities=from_json(row["propensities"]),
        payload=from_json(row["payload"]),
        kind=row["kind"],
    )


def context_from_json(text: str | None) -> tuple[float, ...] | None:
    """A decision's context from its JSON column."""
    return None if text is None else tuple(float(x) for x in from_json(text))


def arm_row(arm: ArmRecord) -> dict[str, Any]:
    """The `arms` row of an arm."""
    return {
        "namespace": arm.namespace,
        "role": arm.role,
        "arm_id": arm.arm_id,
        "origin": arm.origin,
        "definition": to_json(dict(arm.definition), f"arm {arm.arm_id!r} definition"),
        "created_at": utc(arm.created_at),
        "retired_at": None if arm.retired_at is None else utc(arm.retired_at),
        "retired_reason": arm.retired_reason,
    }


def arm_from_row(row: Mapping[Any, Any]) -> ArmRecord:
    """An arm from its `arms` row."""
    return ArmRecord(
        namespace=row["namespace"],
        role=row["role"],
        arm_id=row["arm_id"],
        origin=row["origin"],
        definition=from_json(row["definition"]),
        created_at=utc(row["created_at"]),
        retired_at=None if row["retired_at"] is None else utc(row["retired_at"]),
        retired_reason=row["retired_reason"],
    )
