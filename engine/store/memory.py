"""An in-memory store: a first-class double of the SQL store, for tests and throw-away engines."""

import math
import threading
from dataclasses import replace
from datetime import UTC, datetime

from engine.errors import InvalidRewardError, OutcomeConflictError, UnknownDecisionError
from engine.ports import (
    ArmRecord,
    DecisionRecord,
    LearnedOutcome,
    OutcomeReceipt,
    OutcomeRecord,
)


def check_outcome_values(outcome: OutcomeRecord) -> None:
    """Reject a reward outside [0, 1] or a weight outside (0, 1], NaN and infinities included."""
    if not (math.isfinite(outcome.reward) and 0.0 <= outcome.reward <= 1.0):
        raise InvalidRewardError(
            f"reward must be a finite number in [0, 1], got {outcome.reward!r}"
        )
    if not (math.isfinite(outcome.weight) and 0.0 < outcome.weight <= 1.0):
        raise InvalidRewardError(
            f"weight must be a finite number in (0, 1], got {outcome.weight!r}"
        )
    if not outcome.source or len(outcome.source) > 64:
        raise InvalidRewardError("source must be a non-empty name of at most 64 characters")


class InMemoryStore:
    """Implements DecisionLog, OutcomeLog and ArmCatalog with the SQL store's semantics."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._decisions: dict[str, DecisionRecord] = {}
        self._outcomes: dict[tuple[str, str], tuple[int, OutcomeRecord]] = {}
        self._learned: dict[str, list[LearnedOutcome]] = {}
        self._arms: dict[tuple[str, str, str], ArmRecord] = {}

    def save_decision(self, decision: DecisionRecord) -> None:
        with self._lock:
            self._decisions[decision.decision_id] = decision

    def get_decision(self, decision_id: str) -> DecisionRecord:
        with self._lock:
            try:
                return self._decisions[decision_id]
            except KeyError:
                raise UnknownDecisionError(f"no decision with id {decision_id!r}") from None

    def record_outcome(self, outcome: OutcomeRecord) -> OutcomeReceipt:
        check_outcome_values(outcome)
        with self._lock:
            decision = self._decisions.get(outcome.decision_id)
            if decision is None:
                raise UnknownDecisionError(f"no decision with id {outcome.decision_id!r}")
            key = (outcome.decision_id, outcome.source)
            if key in self._outcomes:
                seq, earlier = self._outcomes[key]
                if (earlier.reward, earlier.weight) != (outcome.reward, outcome.weight):
                    raise OutcomeConflictError(
                        f"decision {outcome.decision_id!r} already has a {outcome.source!r} "
                        f"outcome (reward {earlier.reward}, weight {earlier.weight})"
                    )
                return OutcomeReceipt(seq=seq, applied=False)
            learned = self._learned.setdefault(decision.namespace, [])
            seq = len(learned) + 1
            stamped = replace(outcome, created_at=outcome.created_at or datetime.now(UTC))
            self._outcomes[key] = (seq, stamped)
            learned.append(
                LearnedOutcome(
                    seq=seq,
                    decision_id=decision.decision_id,
                    namespace=decision.namespace,
                    choices=dict(decision.choices),
                    context=decision.context,
                    source=outcome.source,
                    reward=outcome.reward,
                    weight=outcome.weight,
                )
            )
            return OutcomeReceipt(seq=seq, applied=True)

    def outcomes_since(
        self, namespace: str, after_seq: int, limit: int = 10_000
    ) -> list[LearnedOutcome]:
        with self._lock:
            learned = self._learned.get(namespace, [])
            return learned[max(after_seq, 0) : max(after_seq, 0) + limit]

    def save_arm(self, arm: ArmRecord) -> None:
        with self._lock:
            self._arms[(arm.namespace, arm.role, arm.arm_id)] = arm

    def list_arms(self, namespace: str) -> list[ArmRecord]:
        with self._lock:
            return [arm for key, arm in self._arms.items() if key[0] == namespace]
