"""An in-memory store: a first-class double of the SQL store, for tests and throw-away engines."""

import json
import threading
from dataclasses import replace
from datetime import UTC, datetime

from engine.adapters.store.codec import to_json
from engine.adapters.store.validation import (
    check_arm,
    check_checkpoint,
    check_checkpoint_seq,
    check_decision,
    check_kind_event,
    check_outcome_values,
    placed_correction,
    replayed_receipt,
)
from engine.domain.evidence import check_place
from engine.domain.kinds import KindEvent
from engine.domain.records import (
    ArmRecord,
    CheckpointRecord,
    DecisionRecord,
    LearnedOutcome,
    OutcomeReceipt,
    OutcomeRecord,
)
from engine.errors import StoreError, UnknownDecisionError

__all__ = ["InMemoryStore", "check_outcome_values"]


class InMemoryStore:
    """Implements DecisionLog, OutcomeLog and ArmCatalog with the SQL store's semantics."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._decisions: dict[str, DecisionRecord] = {}
        # (decision, source key) -> (seq, reward, weight): what a repost is answered with
        self._outcomes: dict[tuple[str, str], tuple[int, float, float]] = {}
        self._learned: dict[str, list[LearnedOutcome]] = {}
        # by decision, as the SQL store's (decision, source) index serves `outcomes_of`: the
        # learner reads a decision's outcomes whenever one arrives
        self._by_decision: dict[str, list[LearnedOutcome]] = {}
        self._arms: dict[tuple[str, str, str], ArmRecord] = {}
        # Each namespace's catalogue as `list_arms` orders it, kept until the next `save_arm`:
        # every decision reads the catalogue, and sorting it anew was a quarter of that read.
        self._listed: dict[str, list[ArmRecord]] = {}
        self._checkpoints: dict[tuple[str, str], CheckpointRecord] = {}
        self._kind_events: dict[str, list[KindEvent]] = {}

    def save_decision(self, decision: DecisionRecord) -> None:
        """Store a decision; saving the same decision again is a no-op, a changed one an error."""
        check_decision(decision)
        with self._lock:
            earlier = self._decisions.setdefault(decision.decision_id, decision)
            if earlier is not decision and earlier != decision:
                raise StoreError(
                    f"decision {decision.decision_id!r} was saved before with different "
                    "content; a decision is immutable once saved"
                )

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
            revision = 0
            if outcome.max_revisions is not None:  # a correction: its key is chosen here
                stored = ((o.source, o.seq, o.reward, o.weight) for o in self._history(outcome))
                placed = placed_correction(outcome, stored)
                if isinstance(placed, OutcomeReceipt):
                    return placed
                outcome, revision = placed
            key = (outcome.decision_id, outcome.source)
            if key in self._outcomes:
                return replayed_receipt(outcome, *self._outcomes[key])
            keys = (o.source for o in self._history(outcome))
            check_place(outcome.decision_id, outcome.source, outcome.max_sources, keys)
            learned = self._learned.setdefault(decision.namespace, [])
            seq = len(learned) + 1
            # No creation stamp is kept: nothing reads an outcome's back from this store (the SQL
            # store keeps its column), and the copy that stamped it cost a quarter of the write.
            self._outcomes[key] = (seq, outcome.reward, outcome.weight)
            joined = LearnedOutcome.join(seq, decision, outcome)
            learned.append(joined)
            self._by_decision.setdefault(outcome.decision_id, []).append(joined)
            return OutcomeReceipt(seq=seq, applied=True, revision=revision)

    def _history(self, outcome: OutcomeRecord) -> list[LearnedOutcome]:
        return self._by_decision.get(outcome.decision_id, [])

    def outcomes_since(
        self, namespace: str, after_seq: int, limit: int = 10_000
    ) -> list[LearnedOutcome]:
        if limit < 1:
            raise StoreError(f"limit must be at least 1, got {limit}")
        with self._lock:
            learned = self._learned.get(namespace, [])
            return learned[max(after_seq, 0) : max(after_seq, 0) + limit]

    def outcomes_of(
        self,
        *decision_ids: str,
        decision_fields: bool = True,  # noqa: ARG002 - held in memory already: given whole
    ) -> list[LearnedOutcome]:
        with self._lock:
            found = [o for d in dict.fromkeys(decision_ids) for o in self._by_decision.get(d, ())]
        return sorted(found, key=lambda outcome: (outcome.seq, outcome.decision_id))

    def save_arm(self, arm: ArmRecord) -> None:
        check_arm(arm)
        with self._lock:
            self._arms[(arm.namespace, arm.role, arm.arm_id)] = arm
            self._listed.pop(arm.namespace, None)

    def list_arms(self, namespace: str) -> list[ArmRecord]:
        with self._lock:
            listed = self._listed.get(namespace)
            if listed is None:
                ordered = sorted(self._arms.items())
                listed = self._listed[namespace] = [a for k, a in ordered if k[0] == namespace]
            return list(listed)  # the caller's own list (the records are frozen)

    def save_checkpoint(self, checkpoint: CheckpointRecord) -> None:
        check_checkpoint(checkpoint)
        # A deep copy through JSON, as the SQL store keeps it: the caller's dict may change.
        state = json.loads(to_json(dict(checkpoint.state), "checkpoint state"))
        with self._lock:
            check_checkpoint_seq(checkpoint, len(self._learned.get(checkpoint.namespace, [])))
            key = (checkpoint.namespace, checkpoint.fingerprint)
            kept = self._checkpoints.get(key)
            if kept is None or kept.seq < checkpoint.seq:  # only the newest is ever read
                self._checkpoints[key] = replace(
                    checkpoint, state=state, created_at=checkpoint.created_at or datetime.now(UTC)
                )

    def latest_checkpoint(self, namespace: str, fingerprint: str) -> CheckpointRecord | None:
        with self._lock:
            kept = self._checkpoints.get((namespace, fingerprint))
        return None if kept is None else replace(kept, state=json.loads(json.dumps(kept.state)))

    def append_kind_event(self, event: KindEvent) -> bool:
        check_kind_event(event)
        with self._lock:
            events = self._kind_events.setdefault(event.namespace, [])
            if event.seq != len(events) + 1:
                return False  # taken (or a gap: the writer has not read the log to its end)
            events.append(event)
            return True

    def kind_events_since(self, namespace: str, after_seq: int) -> list[KindEvent]:
        with self._lock:
            return list(self._kind_events.get(namespace, [])[max(after_seq, 0) :])

    def kind_sizes(self, namespace: str) -> dict[str, int]:
        with self._lock:
            sizes: dict[str, int] = {}
            for decision in self._decisions.values():
                if decision.namespace == namespace and decision.kind is not None:
                    sizes[decision.kind] = sizes.get(decision.kind, 0) + 1
            return sizes
