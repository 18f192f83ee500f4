"""Posting outcomes: a client's score or its correction, and the engine's own scores, as the
store takes them (`Engine.record_outcome` and the commit step of `Engine.decide`).

A client's first score from a source costs one write and no read: the store answers a repost
with its first receipt, or a conflict, and refuses a new source past
`config.max_outcome_sources` in the transaction that writes it (`OutcomeRecord.max_sources`).
Why there: the engine once read the decision's history first and checked the bound on what it
read, so posts racing for a decision's last place could each pass it, and on PostgreSQL that
read was a round trip that every post waited on besides its commit. A correction still reads the
decision's history once, for the revision it takes and the value that stands; a revision is a
key of its own, so of two corrections racing for it one gets it and the other a conflict.
"""

import numbers
from collections.abc import Sequence

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
        revision: int = 0,
        max_sources: int | None = None,
    ) -> OutcomeResult:
        """Write one outcome at `revision` of its source, bounded by `max_sources` if given."""
        if reward is None:
            raise InvalidRewardError("a reward in [0, 1] is required")
        weight = self._config.weight_for(source) if weight is None else weight
        if not (_is_number(reward) and _is_number(weight)):  # True or "1" is a caller's bug
            raise InvalidRewardError(
                f"reward and weight must be numbers, got {reward!r} and {weight!r}"
            )
        key = evidence.source_key(source, revision)
        record = OutcomeRecord(
            decision_id, key, float(reward), float(weight), max_sources=max_sources
        )
        receipt = self._store.record_outcome(record)
        if receipt.applied and self._tracker is not None:
            stored = self._store.get_decision(record.decision_id)
            self._tracker.log_outcome(LearnedOutcome.join(receipt.seq, stored, record))
        return OutcomeResult(
            decision_id=decision_id,
            source=source,
            reward=record.reward,
            weight=record.weight,
            seq=receipt.seq,
            applied=receipt.applied,
            roles=list(roles_taught_by(key)),
            revision=revision,
        )

    def _correct(
        self, decision_id: str, source: str, reward: float | None, weight: float | None
    ) -> OutcomeResult:
        """The next revision of the source's score (its first, with nothing to correct)."""
        latest = _latest(self._store.outcomes_of(decision_id), source)
        revision = self._revision_for(decision_id, latest, reward, weight)
        if revision is None:  # a correction to the value that stands already: nothing to do
            assert latest is not None  # `_revision_for` found it
            return result_of(latest).model_copy(update={"applied": False})
        if revision > 0:  # the source is there already: only its revisions are bounded here
            evidence.check_room(
                decision_id,
                [source],
                source,
                revision,
                max_sources=self._config.max_outcome_sources,
                max_revisions=self._config.max_outcome_revisions,
            )
        bound = self._config.max_outcome_sources if revision == 0 else None
        return self.record(
            decision_id, source, reward, weight, revision=revision, max_sources=bound
        )

    def _revision_for(
        self,
        decision_id: str,
        latest: LearnedOutcome | None,
        reward: float | None,
        weight: float | None,
    ) -> int | None:
        """The revision a correction gets: the next one, 0 with nothing to correct, None when
        the standing score (`latest`) already has this value (posting it again changes nothing)."""
        if latest is None:
            self._store.get_decision(decision_id)  # UnknownDecisionError before anything else
            return 0
        source, revision = evidence.split_source_key(latest.source)
        weight = self._config.weight_for(source) if weight is None else weight
        if _is_number(reward) and (latest.reward, latest.weight) == (reward, weight):
            return None
        return revision + 1


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
    """A real number, not a bool (True as a reward is a caller's bug, not 1.0)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _latest(history: Sequence[LearnedOutcome], source: str) -> LearnedOutcome | None:
    """The standing (latest) revision of `source`'s score in a decision's history, if any."""
    standing = [o for o in history if evidence.split_source_key(o.source)[0] == source]
    return standing[-1] if standing else None
