"""Posting outcomes: a client's score or its correction, and the engine's own scores, as the
store takes them (`Engine.record_outcome` and the commit step of `Engine.decide`).

A client's first score from a source costs one write and no read: the store answers a repost
with its first receipt, or a conflict, and refuses a new source past
`config.max_outcome_sources` in the transaction that writes it (`OutcomeRecord.max_sources`).
Why there: the engine once read the decision's history first and checked the bound on what it
read, so posts racing for a decision's last place could each pass it, and on PostgreSQL that
read was a round trip that every post waited on besides its commit. A correction costs one
write and no read too: it asks the store for its source's next revision
(`OutcomeRecord.max_revisions`), and the store finds that revision and the value that stands in
the same transaction (`evidence.next_revision`), refuses past `config.max_outcome_revisions`, and
answers a value that stands already as not applied. The engine once read the history for that
as well, one round trip more per correction; now two corrections racing each get a revision of
their own (or the second, with the first's value, is not applied).
"""

import numbers
from dataclasses import replace

from engine.domain import evidence
from engine.domain.config import EngineConfig
from engine.domain.models import OutcomeResult
from engine.domain.ports import Store, Tracker
from engine.domain.records import LearnedOutcome, OutcomeRecord
from engine.errors import InvalidRewardError, OutcomeConflictError
from engine.orchestration.learner import roles_taught_by

__all__ = ["OutcomePosts", "result_of"]


class OutcomePosts:
    """Writes outcomes to the store (and the tracker) and says what each did."""

    def __init__(self, store: Store, config: EngineConfig, tracker: Tracker | None) -> None:
        self._store = store
        self._config = config
        self._tracker = tracker

    def post(
        self,
        decision_id: str,
        source: str,
        reward: float | None,
        weight: float | None,
        *,
        replace: bool,
    ) -> OutcomeResult:
        """A client source's score (normalised already), or with `replace` its correction."""
        if replace:
            return self._correct(decision_id, source, reward, weight)
        try:
            return self.record(
                decision_id, source, reward, weight, max_sources=self._config.max_outcome_sources
            )
        except OutcomeConflictError as error:
            hint = f"{error}; to correct it, post with replace=True"
            raise OutcomeConflictError(hint) from None

    def record(
        self,
        decision_id: str,
        source: str,
        reward: float | None,
        weight: float | None,
        *,
        max_sources: int | None = None,
        max_revisions: int | None = None,
    ) -> OutcomeResult:
        """Write one outcome of `source`, bounded by `max_sources` if given; with
        `max_revisions`, at the source's next revision (a correction, see the module)."""
        if reward is None:
            raise InvalidRewardError("a reward in [0, 1] is required")
        weight = self._config.weight_for(source) if weight is None else weight
        if not (_is_number(reward) and _is_number(weight)):  # True or "1" is a caller's bug
            raise InvalidRewardError(
                f"reward and weight must be numbers, got {reward!r} and {weight!r}"
            )
        record = OutcomeRecord(
            decision_id,
            source,
            float(reward),
            float(weight),
            max_sources=max_sources,
            max_revisions=max_revisions,
        )
        receipt = self._store.record_outcome(record)
        key = evidence.source_key(source, receipt.revision)
        if receipt.applied and self._tracker is not None:
            stored = self._store.get_decision(record.decision_id)
            joined = LearnedOutcome.join(receipt.seq, stored, replace(record, source=key))
            self._tracker.log_outcome(joined)
        return OutcomeResult(
            decision_id=decision_id,
            source=source,
            reward=record.reward,
            weight=record.weight,
            seq=receipt.seq,
            applied=receipt.applied,
            roles=list(roles_taught_by(key)),
            revision=receipt.revision,
        )

    def _correct(
        self, decision_id: str, source: str, reward: float | None, weight: float | None
    ) -> OutcomeResult:
        """The next revision of the source's score (its first, with nothing to correct): the
        store chooses it in its write, and answers a value that stands already as not applied."""
        return self.record(
            decision_id,
            source,
            reward,
            weight,
            max_sources=self._config.max_outcome_sources,
            max_revisions=self._config.max_outcome_revisions,
        )


def result_of(outcome: LearnedOutcome) -> OutcomeResult:
    """A stored outcome as the client sees it: its source and revision apart."""
    source, revision = evidence.split_source_key(outcome.source)
    return OutcomeResult(
        decision_id=outcome.decision_id,
        source=source,
        reward=outcome.reward,
        weight=outcome.weight,
        seq=outcome.seq,
        applied=True,  # every stored outcome was applied once, when first posted
        roles=list(roles_taught_by(outcome.source)),
        revision=revision,
    )


def _is_number(value: object) -> bool:
    """A real number, not a bool (True as a reward is a caller's bug, not 1.0).

    >>> _is_number(0.5), _is_number(1), _is_number(True), _is_number("1")
    (True, True, False, False)
    """
    if type(value) in (float, int):  # the usual case, without the ABC's slow instance check
        return True
    return isinstance(value, numbers.Real) and not isinstance(value, bool)
