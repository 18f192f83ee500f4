"""The evidence ledger: per decision, each source's standing score, as replayed from the log.

The learner asks it, for every outcome it replays, what changed: per role, the outcome in force
before and after (`engine.domain.evidence.in_force`), and the referee's audit pair (the
referee's and the checker's scores of one answer) before and after. The learner then takes the
old evidence out of its statistics and puts the new in, so that one decision always weighs one
outcome, and a correction replaces what it corrects.

Cost, on purpose: one small entry per decision that has an outcome, kept for as long as the
learner lives (and in its checkpoints), because a user may correct a score at any later time.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.domain.evidence import (
    CHECKER,
    REFEREE,
    Evidence,
    in_force,
    split_source_key,
    teaches,
)
from engine.domain.records import LearnedOutcome

__all__ = ["AuditPair", "Change", "EvidenceLedger"]

# (referee reward, checker reward) of one answer
AuditPair = tuple[float, float]


@dataclass(frozen=True)
class Change:
    """What one outcome changed for its decision: per role the evidence in force before and
    after (only roles whose evidence changed), and the audit pair before and after."""

    roles: Mapping[str, tuple[Evidence | None, Evidence | None]]
    audit: tuple[AuditPair | None, AuditPair | None]


class EvidenceLedger:
    """Each decision's sources and their latest scores; not thread-safe (the learner's lock)."""

    def __init__(self) -> None:
        self._scores: dict[str, dict[str, Evidence]] = {}

    def record(self, outcome: LearnedOutcome, roles: Iterable[str]) -> Change:
        """Take in one outcome (replayed in seq order) and say what changed for `roles`."""
        source, _revision = split_source_key(outcome.source)
        before = self._scores.get(outcome.decision_id, {})
        earlier = before.get(source)
        # A correction (a later revision) replaces its source's score and keeps its place in
        # the order of arrival; the store gives each revision its own key.
        first_seq = earlier.first_seq if earlier is not None else outcome.seq
        evidence = Evidence(source, outcome.reward, outcome.weight, first_seq)
        after = {**before, source: evidence}
        self._scores[outcome.decision_id] = after
        if not before:  # the decision's first outcome (the usual case): in force where it teaches
            first = {role: (None, evidence) for role in roles if teaches(source, role)}
            return Change(first, (None, None))
        changed = {}
        for role in roles:
            old, new = in_force(before, role), in_force(after, role)
            if old != new:
                changed[role] = (old, new)
        return Change(changed, (_audit_pair(before), _audit_pair(after)))

    def state(self) -> list[list[Any]]:
        """JSON-safe: [decision, source, reward, weight, first_seq] per standing score."""
        return [
            [decision, e.source, e.reward, e.weight, e.first_seq]
            for decision, scores in self._scores.items()
            for e in scores.values()
        ]

    def restore(self, rows: Sequence[Sequence[Any]]) -> None:
        """Take over `state()` output."""
        scores: dict[str, dict[str, Evidence]] = {}
        for decision, source, reward, weight, first_seq in rows:
            evidence = Evidence(str(source), float(reward), float(weight), int(first_seq))
            scores.setdefault(str(decision), {})[evidence.source] = evidence
        self._scores = scores


def _audit_pair(scores: Mapping[str, Evidence]) -> AuditPair | None:
    referee, checker = scores.get(REFEREE), scores.get(CHECKER)
    if referee is None or checker is None:
        return None
    return (referee.reward, checker.reward)
