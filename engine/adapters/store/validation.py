"""Checks that every store runs before it writes, so bad input fails alike in memory and in SQL.

Each check raises before anything is written, with a message that names the offending field.
"""

import math
from collections.abc import Iterable, Mapping
from dataclasses import replace

from engine.domain.evidence import next_revision, source_key
from engine.domain.kinds import KindEvent
from engine.domain.records import (
    ArmRecord,
    CheckpointRecord,
    DecisionRecord,
    OutcomeReceipt,
    OutcomeRecord,
)
from engine.errors import InvalidRewardError, OutcomeConflictError, StoreError

MAX_ID = 128
MAX_SOURCE = 64
MAX_ROLE = 64
MAX_ARM = 256
ORIGINS = ("template", "detour", "tool")
MAX_FINGERPRINT = 64
_NUMBERS = (float, int)  # exact types: bool (an int) as a reward is a caller's bug, not 1.0


def check_outcome_values(outcome: OutcomeRecord) -> None:
    """Reject a reward outside [0, 1] or a weight outside (0, 1], NaN and infinities included."""
    # The range tests also reject NaN (every comparison with NaN is false) and infinities, so
    # one chained comparison per value suffices: this runs once per outcome on the bulk path.
    reward, weight = outcome.reward, outcome.weight
    if type(reward) not in _NUMBERS or not 0.0 <= reward <= 1.0:
        raise InvalidRewardError(f"reward must be a finite number in [0, 1], got {reward!r}")
    if type(weight) not in _NUMBERS or not 0.0 < weight <= 1.0:
        raise InvalidRewardError(f"weight must be a finite number in (0, 1], got {weight!r}")
    source = outcome.source
    if type(source) is not str or not 0 < len(source) <= MAX_SOURCE:
        raise InvalidRewardError(
            f"source must be a non-empty name of at most {MAX_SOURCE} characters"
        )
    decision_id = outcome.decision_id
    if type(decision_id) is not str or not 0 < len(decision_id) <= MAX_ID:
        _check_name("decision_id", decision_id, MAX_ID)


def check_decision(decision: DecisionRecord) -> None:
    """Reject a decision whose ids, choices, propensities or context a store cannot keep."""
    _check_name("decision_id", decision.decision_id, MAX_ID)
    _check_name("namespace", decision.namespace, MAX_ID)
    if not isinstance(decision.query, str):
        raise StoreError(f"decision {decision.decision_id!r}: query must be a string")
    _check_choices(decision.decision_id, decision.choices)
    for role, probability in decision.propensities.items():
        if not (_is_number(probability) and 0.0 <= probability <= 1.0):
            raise StoreError(
                f"decision {decision.decision_id!r}: propensity of {role!r} must be a finite "
                f"number in [0, 1], got {probability!r}"
            )
    if decision.kind is not None:
        _check_name("kind", decision.kind, MAX_ID)
    if decision.context is not None and not all(_is_number(x) for x in decision.context):
        raise StoreError(
            f"decision {decision.decision_id!r}: context must hold finite numbers only"
        )


def check_kind_event(event: KindEvent) -> None:
    """Reject a kind event with a bad namespace, seq, id, action or anchor."""
    _check_name("namespace", event.namespace, MAX_ID)
    _check_name("kind_id", event.kind_id, MAX_ID)
    seq = event.seq
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 1:
        raise StoreError(f"a kind event's seq must be a positive integer, got {seq!r}")
    if event.action not in ("create", "rename", "member", "fade", "space") or event.origin not in (
        "task",
        "discovered",
    ):
        raise StoreError(f"kind event {seq}: unknown action {event.action!r} or origin")
    if event.name is not None:
        _check_name("kind name", event.name, MAX_ID)
    if event.anchor is not None and not all(_is_number(x) for x in event.anchor):
        raise StoreError(f"kind {event.kind_id!r}: anchor must hold finite numbers only")


def check_arm(arm: ArmRecord) -> None:
    """Reject an arm with an empty or over-long name or an unknown origin."""
    _check_name("namespace", arm.namespace, MAX_ID)
    _check_name("role", arm.role, MAX_ROLE)
    _check_name("arm_id", arm.arm_id, MAX_ARM)
    if arm.origin not in ORIGINS:
        raise StoreError(f"arm {arm.arm_id!r}: origin must be one of {ORIGINS}, got {arm.origin!r}")


def check_checkpoint(checkpoint: CheckpointRecord) -> None:
    """Reject a checkpoint with a bad namespace, fingerprint or seq, or a state that is no dict."""
    _check_name("namespace", checkpoint.namespace, MAX_ID)
    _check_name("checkpoint fingerprint", checkpoint.fingerprint, MAX_FINGERPRINT)
    seq = checkpoint.seq
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 1:
        raise StoreError(f"a checkpoint's seq must be a positive integer, got {seq!r}")
    if not isinstance(checkpoint.state, Mapping):
        raise StoreError(f"a checkpoint's state must be a dict, got {type(checkpoint.state)}")


def check_checkpoint_seq(checkpoint: CheckpointRecord, last_seq: int) -> None:
    """Refuse a checkpoint of outcomes the namespace does not have (yet)."""
    if checkpoint.seq > last_seq:
        raise StoreError(
            f"checkpoint at seq {checkpoint.seq} is beyond namespace {checkpoint.namespace!r}'s "
            f"last outcome (seq {last_seq})"
        )


def _check_choices(decision_id: str, choices: Mapping[str, str]) -> None:
    for role, arm in choices.items():
        _check_name(f"decision {decision_id!r}: role", role, MAX_ROLE)
        _check_name(f"decision {decision_id!r}: arm of {role!r}", arm, MAX_ARM)


def _check_name(what: str, value: object, limit: int) -> None:
    if not isinstance(value, str) or not 0 < len(value) <= limit:
        raise StoreError(f"{what} must be a non-empty string of at most {limit} characters")


def _is_number(value: object) -> bool:
    # bool is an int: True as a reward is a caller's bug, not 1.0
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def replayed_receipt(
    outcome: OutcomeRecord, seq: int, reward: float, weight: float
) -> OutcomeReceipt:
    """The receipt for an outcome posted again: the first one's, or a conflict if it differs.

    `seq`, `reward` and `weight` are what was recorded first for the same (decision, source).
    """
    if (reward, weight) != (outcome.reward, outcome.weight):
        raise OutcomeConflictError(
            f"decision {outcome.decision_id!r} already has a {outcome.source!r} outcome "
            f"(reward {reward}, weight {weight}); refusing reward {outcome.reward}, "
            f"weight {outcome.weight}"
        )
    return OutcomeReceipt(seq=seq, applied=False)


def placed_correction(
    outcome: OutcomeRecord, stored: Iterable[tuple[str, int, float, float]]
) -> tuple[OutcomeRecord, int] | OutcomeReceipt:
    """A correction (`OutcomeRecord.max_revisions`) placed among its decision's `stored`
    outcomes (key, seq, reward, weight), read inside the write: the record at its source's next
    revision, with that revision, or the receipt of the standing revision when it holds this
    value already. Refuses past the revisions bound (`evidence.next_revision`)."""
    assert outcome.max_revisions is not None  # a correction
    value = (outcome.reward, outcome.weight)
    place = next_revision(outcome.decision_id, outcome.source, value, stored, outcome.max_revisions)
    if place.standing_seq is not None:
        return OutcomeReceipt(seq=place.standing_seq, applied=False, revision=place.revision)
    key = source_key(outcome.source, place.revision)
    return replace(outcome, source=key, max_revisions=None), place.revision
