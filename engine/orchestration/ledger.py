"""The evidence ledger: per decision, each source's standing score, as replayed from the log.

The learner asks it, for every outcome it replays, what changed: per role, the outcome in force
before and after (`engine.domain.evidence.in_force`), and the referee's audit pair (the
referee's and the checker's scores of one answer) before and after. The learner then takes the
old evidence out of its statistics and puts the new in, so that one decision always weighs one
outcome, and a correction replaces what it corrects.

Where a decision's scores live: in the store, which keeps every outcome indexed by decision
(`OutcomeLog.outcomes_of`). When an outcome arrives for a decision the ledger does not hold, it
folds that decision's earlier outcomes (seq below the new one's) as it would have. Before a
batch, `read_ahead` reads those of every decision in it that it does not hold, in one read: a
read per decision, under the learner's lock, would serialise every thread posting outcomes on
the store's round trips. It holds only the `REMEMBERED` decisions met last, since a decision's
outcomes come close together (the engine's own at once, a user's soon after). Why: a user may
correct a score at any later time, and the first version kept every decision's scores in memory
and in each checkpoint, so both grew with the log (12.5 MB of checkpoint at 200,000 outcomes,
start-up 70 times slower); now they hold the policies' statistics alone.

Every process replays the same log in the same order, so whether a decision's scores come from
memory or from the store, the ledger says the same: remembered scores are kept up to date by
every later outcome of their decision, and the store holds every earlier one.
"""

from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from engine.domain.evidence import (
    CHECKER,
    REFEREE,
    TOOL,
    Evidence,
    in_force,
    split_source_key,
    teaches,
    trust_of,
)
from engine.domain.records import LearnedOutcome

__all__ = ["REMEMBERED", "AuditPair", "Change", "EvidenceLedger", "History", "Stored"]

# (referee reward, checker reward) of one answer
AuditPair = tuple[float, float]
# Some decisions' outcomes in seq order, as the learner learns them (priced, the unusable left
# out): one read for all of them.
History = Callable[[Sequence[str]], Sequence[LearnedOutcome]]
# Decision id -> its stored outcomes in seq order, read ahead of a batch (`read_ahead`).
Stored = Mapping[str, Sequence[LearnedOutcome]]
# Decisions whose scores stay in memory; the store holds every one of them.
REMEMBERED = 4096


@dataclass(frozen=True)
class Change:
    """What one outcome changed for its decision: per role the evidence in force before and
    after (only roles whose evidence changed), and the audit pair before and after."""

    roles: Mapping[str, tuple[Evidence | None, Evidence | None]]
    audit: tuple[AuditPair | None, AuditPair | None]


class EvidenceLedger:
    """Each decision's sources and their latest scores; not thread-safe (the learner's lock)."""

    def __init__(self, history: History, *, remembered: int = REMEMBERED) -> None:
        if remembered < 1:
            raise ValueError(f"the ledger must remember at least one decision, got {remembered}")
        self._history = history
        self._remembered = remembered
        self._scores: OrderedDict[str, dict[str, Evidence]] = OrderedDict()

    def read_ahead(self, batch: Iterable[LearnedOutcome]) -> Stored:
        """The stored outcomes of every decision in `batch` that the ledger does not hold, in one
        read, for `record`: a decision's earlier outcomes are all there, since seqs follow
        commit order and the batch was read first (those after each outcome are passed over)."""
        missing = [d for d in dict.fromkeys(o.decision_id for o in batch) if d not in self._scores]
        stored: dict[str, list[LearnedOutcome]] = {decision_id: [] for decision_id in missing}
        for outcome in self._history(missing) if missing else ():
            stored[outcome.decision_id].append(outcome)
        return stored

    def record(
        self, outcome: LearnedOutcome, roles: Iterable[str], stored: Stored | None = None
    ) -> Change:
        """Take in one outcome (replayed in seq order) and say what changed for `roles`; a
        decision it does not hold is looked up in `stored` (`read_ahead`), else read."""
        before = self._standing(outcome, stored or {})
        evidence = _score(before, outcome)
        after = _standing_only({**before, evidence.source: evidence})
        self._remember(outcome.decision_id, after)
        if not before:  # the decision's first outcome (the usual case): in force where it teaches
            first = {role: (None, evidence) for role in roles if teaches(evidence.source, role)}
            return Change(first, (None, None))
        changed = {}
        for role in roles:
            old, new = in_force(before, role), in_force(after, role)
            if old != new:
                changed[role] = (old, new)
        return Change(changed, (_audit_pair(before), _audit_pair(after)))

    def begin(self, decision_id: str) -> None:
        """Remember a decision saved just now, before any outcome: its first outcome then needs
        no read from the store (any outcome from anywhere reaches it through `record`)."""
        self._remember(decision_id, {})

    def _standing(self, outcome: LearnedOutcome, stored: Stored) -> dict[str, Evidence]:
        """The decision's scores before `outcome`: remembered, or folded from the store."""
        remembered = self._scores.get(outcome.decision_id)
        if remembered is not None:
            return remembered
        history = stored.get(outcome.decision_id)
        if history is None:  # not read ahead (or forgotten within a batch of over REMEMBERED)
            history = self._history([outcome.decision_id])
        scores: dict[str, Evidence] = {}
        for earlier in history:
            if earlier.seq >= outcome.seq:  # in seq order: the rest came later
                break
            evidence = _score(scores, earlier)
            scores[evidence.source] = evidence
        return _standing_only(scores)

    def _remember(self, decision_id: str, scores: dict[str, Evidence]) -> None:
        self._scores[decision_id] = scores
        self._scores.move_to_end(decision_id)
        if len(self._scores) > self._remembered:
            self._scores.popitem(last=False)


def _score(scores: Mapping[str, Evidence], outcome: LearnedOutcome) -> Evidence:
    """`outcome` as its source's standing score. A correction (a later revision) replaces its
    source's score and keeps its place in the order of arrival; the store gives each revision
    its own key."""
    source, _revision = split_source_key(outcome.source)
    kept = scores.get(source)
    first_seq = kept.first_seq if kept is not None else outcome.seq
    return Evidence(source, outcome.reward, outcome.weight, first_seq)


def _standing_only(scores: dict[str, Evidence]) -> dict[str, Evidence]:
    """`scores` less the sources that can never be in force again: of the sources that teach
    the same roles with the same trust (`in_force`), only the one that scored first can be, since
    a source's place is its first score and no source leaves; the checker's and the referee's
    stay for the audit pair. Why: sixteen users scoring one decision cost every later outcome of
    it sixteen trust look-ups per role (half of a start-up's replay, docs/benchmarks.md); now
    one or two. A source dropped here that scores again comes back with a later place than the
    one that stands, so `in_force` answers as it would have with every source kept."""
    if len(scores) <= 2:  # a checker's and a user's, say: nothing to drop (the usual case)
        return scores
    first: dict[tuple[int, bool], Evidence] = {}
    for evidence in scores.values():
        group = (trust_of(evidence.source), evidence.source == TOOL)  # as `teaches` splits them
        standing = first.get(group)
        if standing is None or evidence.first_seq < standing.first_seq:
            first[group] = evidence
    kept = {evidence.source for evidence in first.values()} | {CHECKER, REFEREE}
    return {source: evidence for source, evidence in scores.items() if source in kept}


def _audit_pair(scores: Mapping[str, Evidence]) -> AuditPair | None:
    referee, checker = scores.get(REFEREE), scores.get(CHECKER)
    if referee is None or checker is None:
        return None
    return (referee.reward, checker.reward)
