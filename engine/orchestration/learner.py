"""The in-memory learning state of one namespace: every learned role, fed only by outcomes.

A `Learner` is a cache of the store's outcome log. It changes in exactly two ways: an outcome is
replayed into it (`apply`), or an arm is added or retired. Pre-execution guesses (ratings,
feasibility) have no way in, by construction. Every process that replays the same outcomes in the
same order holds the same statistics, which is how replicas sharing a store learn together.

The roles it learns:

- `path`, `tool`, `seed`, `model`: bandit policies (the seed role chooses "seed" or "no_seed"
  per kind of query, the model role which model of the catalogue answers), each taught by the
  one outcome in force for each decision
  (`engine.domain.evidence`): a later, more trusted outcome or a correction takes the earlier
  one's share out (`PolicyLike.retract`) and puts its own in;
- the seconds a decision costs per kind with each path and with each tool (`PathSeconds`), and
  each model's speed and each kind's work (`ModelSeconds`), which a draw charges
  where a price is set (`engine.domain.pricing.DrawPrice`): what it costs, not what it is worth;
- `referee`: the referee's audit counts per kind of query (the referee's and the checker's
  scores of one answer, both in the log), from which `engine.stages.referee.reliability` gives
  the weight of its rewards.
"""

import functools
import math
from collections import Counter, deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from engine.domain.evidence import Evidence, split_source_key, teaches
from engine.domain.records import ArmTally, LearnedOutcome
from engine.orchestration.ledger import AuditPair, EvidenceLedger, History, Stored
from engine.orchestration.model_seconds import ModelSeconds
from engine.orchestration.path_seconds import PathSeconds
from engine.orchestration.per_anchor import PerAnchor
from engine.stages import referee
from learning import PolicyLike
from learning.contextual import HashedTuple

__all__ = ["POLICY_ROLES", "ROLES", "Learner", "PerAnchor", "PolicyFactory", "roles_taught_by"]

# The bandit roles, in the order statistics list them. Decisions made before models were arms
# choose no "model": their outcomes teach the other roles only (`_known_roles`).
POLICY_ROLES = ("path", "tool", "seed", "model")
TIMED_ROLES = ("path", "tool", "model")  # the roles whose arms' seconds a draw charges
ROLES = (*POLICY_ROLES, "referee")  # every learned role
# The seed role's arms: the answer saw a brief, or it did not.
SEED, NO_SEED = "seed", "no_seed"

# (role, arms, context_dim) -> a fresh policy for that role
PolicyFactory = Callable[[str, list[str], int], PolicyLike]
ContextKey = tuple[float, ...]
_EMPTY_TALLY = ArmTally()  # frozen: shared as every untaught arm's start


@functools.lru_cache(maxsize=1024)  # a pure function of a name: asked once per outcome posted
def roles_taught_by(source: str) -> tuple[str, ...]:
    """Which roles outcomes of a source (a stored key, corrections included) can teach.

    A tool run's own success or failure says nothing about the reasoning path, so the "tool"
    source teaches only the tool policy; a judgement of the answer teaches every policy role,
    and the checker's and the referee's together measure the referee.

    >>> roles_taught_by("tool"), roles_taught_by("user#2")
    (('tool',), ('path', 'tool', 'seed', 'model'))
    >>> roles_taught_by("referee")
    ('path', 'tool', 'seed', 'model', 'referee')
    """
    name, _revision = split_source_key(source)
    taught = tuple(role for role in POLICY_ROLES if teaches(name, role))
    return (*taught, "referee") if name in ("checker", "referee") else taught


@dataclass
class ReplayReport:
    """What one replay batch did: outcomes applied, skipped (with why) and arms retired."""

    applied: int = 0
    skipped: list[str] = field(default_factory=list)
    retired: list[tuple[str, str, str]] = field(default_factory=list)  # role, arm, reason


RetirementRule = Callable[[str, str, ArmTally], str | None]  # role, arm, tally -> reason or None


class Learner:
    """Policies per role plus statistics, updated only by replaying outcomes in seq order."""

    def __init__(
        self,
        policies: Mapping[str, PolicyLike],
        context_dim: int,
        *,
        history: History,
        retirable: Callable[[str, str], bool] | None = None,
        retirement_rule: RetirementRule | None = None,
        archived: Callable[[str, str], bool] | None = None,
        recent_window: int = 8,
    ) -> None:
        # The learner is the one writer of its state; the arm book and the checkpoints read it
        # through these read-only views, which no reader can change.
        self._policies = dict(policies)
        self._tallies: dict[tuple[str, str], ArmTally] = {}
        # The same tallies per model that answered: (model, role, arm). Why: the path and tool
        # policies learn across models (docs/engine.md, "Models as arms"); what each arm did
        # on each model is the record that shows where they differ (the Arms tab's filter).
        self._model_tallies: dict[tuple[str, str, str], ArmTally] = {}
        self._retired: dict[tuple[str, str], str] = {}
        self.policies: Mapping[str, PolicyLike] = MappingProxyType(self._policies)
        self.tallies: Mapping[tuple[str, str], ArmTally] = MappingProxyType(self._tallies)
        self.model_tallies: Mapping[tuple[str, str, str], ArmTally] = MappingProxyType(
            self._model_tallies
        )
        self.retired: Mapping[tuple[str, str], str] = MappingProxyType(self._retired)
        self.context_dim = context_dim
        self.last_seq = 0
        # Without a rule nothing is ever retired (templates are never retired).
        self._retirable = retirable or (lambda _role, _arm: False)
        self._retirement_rule = retirement_rule or (lambda _role, _arm, _tally: None)
        # Archived arms (`archive`): retired long ago, their statistics dropped from memory; the
        # owner (the arm book) keeps their ids, so that their late outcomes are still recognised.
        self._archived = archived or (lambda _role, _arm: False)
        self._recent: dict[ContextKey, deque[float]] = {}
        self._recent_window = recent_window
        # A decision's earlier outcomes, read from the store when a later one arrives (`ledger`),
        # less those the learner skips, so that the ledger folds exactly what it was given.
        self._history = history
        self._ledger = self._new_ledger()
        self._audits: dict[ContextKey, Counter[tuple[float, bool]]] = {}
        # Every kind's audit counts added up, kept in step with them: pooling them per read
        # cost a decision without a checker some 25 microseconds a read, growing with the kinds.
        self._pooled_audits: Counter[tuple[float, bool]] = Counter()
        self._per_anchor = PerAnchor()
        self._seconds = {"path": PathSeconds(), "tool": PathSeconds()}
        self._model_seconds = ModelSeconds()

    def policy_context(self, role: str, context: Sequence[float] | None) -> np.ndarray | None:
        """The context as the role's policy takes it: an array for contextual ones, else None."""
        if not self.policies[role].is_contextual or context is None:
            return None
        return self._per_anchor.derive(context, _context_array)

    def _key_of(self, context: Sequence[float] | None) -> ContextKey:
        return () if context is None else self._per_anchor.derive(context, _context_key)

    @property
    def recent_window(self) -> int:
        """How many of a context's latest path rewards `recent_rewards` keeps."""
        return self._recent_window

    @property
    def contexts_seen(self) -> list[ContextKey]:
        """Every context a path outcome has taught, in the order first seen."""
        return [key for key in self._recent if key]

    def recent_rewards(self, context: Sequence[float] | None) -> list[float]:
        """The latest path rewards for queries with this exact context, oldest first."""
        return list(self._recent.get(self._key_of(context), ()))

    def path_seconds(
        self, context: Sequence[float] | None, paths: Sequence[str]
    ) -> dict[str, float]:
        """The mean seconds of each timed path for this kind of query (`PathSeconds.means`)."""
        return self._seconds["path"].means(self._key_of(context), paths)

    def tool_seconds(
        self, context: Sequence[float] | None, tools: Sequence[str]
    ) -> dict[str, float]:
        """The mean seconds of a decision with each timed tool for this kind of query."""
        return self._seconds["tool"].means(self._key_of(context), tools)

    def model_seconds(
        self, context: Sequence[float] | None, models: Sequence[str]
    ) -> dict[str, float]:
        """The seconds a decision of this kind is expected to take on each timed model: its
        speed times the kind's work (`ModelSeconds.expected`)."""
        return self._model_seconds.expected(self._key_of(context), models)

    def audits(self, context: Sequence[float] | None) -> tuple[Counter[tuple[float, bool]], ...]:
        """The referee's audit counts for this kind of query, and pooled over every kind."""
        own = self._audits.get(self._key_of(context), Counter())
        return Counter(own), Counter(self._pooled_audits)

    def audited_contexts(self) -> list[ContextKey]:
        """Every kind of query with audit pairs, in the order first seen."""
        return list(self._audits)

    def apply(self, outcomes: Sequence[LearnedOutcome]) -> ReplayReport:
        """Replay outcomes (in seq order) into the roles; retire arms that keep failing."""
        report = ReplayReport()
        # the earlier outcomes of the batch's decisions, in one read (see `EvidenceLedger`)
        stored = self._ledger.read_ahead(
            o for o in outcomes if o.seq > self.last_seq and self._problem(o) is None
        )
        for outcome in outcomes:
            if outcome.seq <= self.last_seq:
                continue
            self.last_seq = outcome.seq
            problem, moved = self._apply_one(outcome, stored)
            if problem:
                report.skipped.append(f"seq {outcome.seq}: {problem}")
            else:
                report.applied += 1
            report.retired.extend(self._retire_failing(outcome, moved))
        return report

    def begin_decision(self, decision_id: str) -> None:
        """A decision this process saved just now, with no outcome yet (see `EvidenceLedger`)."""
        self._ledger.begin(decision_id)

    def _new_ledger(self) -> EvidenceLedger:
        def usable(decision_ids: Sequence[str]) -> list[LearnedOutcome]:
            return [o for o in self._history(decision_ids) if self._problem(o) is None]

        return EvidenceLedger(usable)

    def _problem(self, outcome: LearnedOutcome) -> str | None:
        """Why the learner cannot learn from `outcome`, or None."""
        if outcome.context is not None and len(outcome.context) != self.context_dim:
            return (
                f"context has {len(outcome.context)} features, the policies take {self.context_dim}"
            )
        if not (math.isfinite(outcome.reward) and math.isfinite(outcome.weight)):
            return "reward or weight is not finite"
        return None

    def _apply_one(self, outcome: LearnedOutcome, stored: Stored) -> tuple[str | None, list[str]]:
        problem = self._problem(outcome)
        if problem is not None:
            return problem, []
        known, live = self._known_roles(outcome.choices)
        change = self._ledger.record(outcome, known, stored)
        if change.roles:
            # derived once for every role it moves (memoised per anchor: `PerAnchor`)
            context = outcome.context
            array = None if context is None else self._per_anchor.derive(context, _context_array)
            key = self._key_of(context)
            for role, (old, new) in change.roles.items():
                self._move(role, outcome, (old, new), live=role in live, at=(array, key))
        self._count_audit(outcome.context, *change.audit)
        taught = bool(known) or change.audit[0] != change.audit[1]
        return (None if taught else "none of its arms is known here"), list(change.roles)

    def _known_roles(self, choices: Mapping[str, str]) -> tuple[list[str], set[str]]:
        """The roles whose chosen arm this namespace has (live or retired), in policy order, and
        those whose arm is live: each policy's arm list read once (`arms` hands out a copy)."""
        known, live = [], set()
        for role, policy in self._policies.items():
            arm = choices.get(role)
            if arm is None:
                continue
            if arm in policy.arms:
                known.append(role)
                live.add(role)
            elif (role, arm) in self._retired or self._archived(role, arm):
                known.append(role)  # not one this namespace never had
        return known, live

    def _move(
        self,
        role: str,
        outcome: LearnedOutcome,
        change: tuple[Evidence | None, Evidence | None],
        *,
        live: bool,
        at: tuple[np.ndarray | None, ContextKey],
    ) -> None:
        """Take the decision's old evidence for `role` out and put the new in. `live`: its arm is
        in the policy (a retired arm's late outcomes count in its record only); `at`: the
        outcome's context as the contextual policies take it, and as the learner keys it."""
        arm = outcome.choices[role]
        if live:
            self._move_policy(role, arm, change, at[0])
        if role == "path":
            self._move_path(change, at[1])
        if not live and self._archived(role, arm):
            # Counted in no arm's statistics (they were dropped), only in the kind's recent
            # rewards, as it was while the arm was retired: so that the state is the same
            # whenever a process archived it (mid-batch, at a sync, or before a replay).
            return
        self._tallies[(role, arm)] = _moved(self._tallies.get((role, arm), _EMPTY_TALLY), change)
        model = outcome.choices.get("model")
        if model is not None and role != "model":
            key = (model, role, arm)
            self._model_tallies[key] = _moved(self._model_tallies.get(key, _EMPTY_TALLY), change)
        if role in TIMED_ROLES:
            self._count_seconds(role, arm, outcome, change, at[1])

    def _move_policy(
        self,
        role: str,
        arm: str,
        change: tuple[Evidence | None, Evidence | None],
        array: np.ndarray | None,
    ) -> None:
        old, new = change
        policy = self._policies[role]
        context = array if policy.is_contextual else None
        # A policy that cannot retract (it discounts or windows its past) keeps the first
        # evidence it learned; its arm's tally still follows the rule.
        if old is None or policy.can_retract:
            if old is not None:
                policy.retract(arm, old.reward, context=context, weight=old.weight)
            if new is not None:
                policy.update(arm, new.reward, context=context, weight=new.weight)

    def _move_path(self, change: tuple[Evidence | None, Evidence | None], key: ContextKey) -> None:
        """The path role's own record: the kind's recent rewards."""
        new = change[1]
        if new is not None:
            window = self._recent.get(key)
            if window is None:
                window = self._recent[key] = deque(maxlen=self._recent_window)
            window.append(new.reward)

    def _count_seconds(
        self,
        role: str,
        arm: str,
        outcome: LearnedOutcome,
        change: tuple[Evidence | None, Evidence | None],
        key: ContextKey,
    ) -> None:
        """A timed role's record of what its arm's decisions cost in seconds."""
        old, new = change
        seconds = outcome.seconds
        if (old is None) == (new is None) or seconds is None:
            return
        # the decision's first evidence counts its seconds once; its last, taken out, uncounts
        sign = 1 if old is None else -1
        if role != "model":
            self._seconds[role].add(key, arm, seconds, sign)
        elif outcome.tokens is not None:
            self._model_seconds.add(key, arm, seconds, outcome.tokens, sign)

    def _count_audit(
        self, context: Sequence[float] | None, old: AuditPair | None, new: AuditPair | None
    ) -> None:
        if old == new:
            return
        for counts in (
            self._audits.setdefault(self._key_of(context), Counter()),
            self._pooled_audits,
        ):
            if old is not None:
                key = referee.audit_key(*old)
                counts[key] -= 1
                if counts[key] <= 0:
                    del counts[key]
            if new is not None:
                counts[referee.audit_key(*new)] += 1

    def _retire_failing(
        self, outcome: LearnedOutcome, roles: list[str]
    ) -> list[tuple[str, str, str]]:
        retired = []
        for role in roles:
            arm = outcome.choices.get(role)
            if arm is None or not self._retirable(role, arm) or arm not in self.policies[role].arms:
                continue
            reason = self._retirement_rule(role, arm, self.tallies.get((role, arm), ArmTally()))
            if reason is not None:
                self.retire(role, arm, reason)
                retired.append((role, arm, reason))
        return retired

    def state(self) -> dict[str, Any]:
        """Everything learned as of `last_seq`, JSON-safe: `engine.orchestration.checkpoints`
        stores it."""
        return {
            "last_seq": self.last_seq,
            "policies": {role: policy.to_dict() for role, policy in self.policies.items()},
            "tallies": [
                [role, arm, tally.pulls, tally.reward_sum, tally.outcomes]
                for (role, arm), tally in self.tallies.items()
            ],
            "model_tallies": [
                [model, role, arm, tally.pulls, tally.reward_sum, tally.outcomes]
                for (model, role, arm), tally in self._model_tallies.items()
            ],
            "retired": [[role, arm, reason] for (role, arm), reason in self.retired.items()],
            "recent": [[list(key), list(window)] for key, window in self._recent.items()],
            "audits": [
                [list(key), [[reward, passed, n] for (reward, passed), n in counts.items()]]
                for key, counts in self._audits.items()
            ],
            "path_seconds": self._seconds["path"].state(list),
            "tool_seconds": self._seconds["tool"].state(list),
            "model_seconds": self._model_seconds.state(list),
        }

    def restore(self, state: Mapping[str, Any], policies: Mapping[str, PolicyLike]) -> None:
        """Take over `state()` output, its policies already rebuilt; all or nothing.

        Each decision's scores are not in it: the ledger reads them from the store (the
        "evidence" of older checkpoints is ignored; the store holds the same)."""
        last_seq = int(state["last_seq"])
        tallies = {
            (str(role), str(arm)): ArmTally(float(pulls), float(reward_sum), int(outcomes))
            for role, arm, pulls, reward_sum, outcomes in state["tallies"]
        }
        model_tallies = {
            (str(model), str(role), str(arm)): ArmTally(
                float(pulls), float(reward_sum), int(outcomes)
            )
            for model, role, arm, pulls, reward_sum, outcomes in state["model_tallies"]
        }
        retired = {(str(role), str(arm)): str(reason) for role, arm, reason in state["retired"]}
        recent = {
            _context_key(key): deque(
                (float(reward) for reward in window), maxlen=self._recent_window
            )
            for key, window in state["recent"]
        }
        audits = {
            _context_key(key): Counter(
                {(float(reward), bool(passed)): int(n) for reward, passed, n in counts}
            )
            for key, counts in state["audits"]
        }
        seconds = {
            role: PathSeconds.restored(state[f"{role}_seconds"], _context_key)
            for role in ("path", "tool")
        }
        model_seconds = ModelSeconds.restored(state["model_seconds"], _context_key)
        # In place, so that the read-only views stay views of the live state.
        self._policies.clear()
        self._policies.update(policies)
        self._tallies.clear()
        self._tallies.update(tallies)
        self._model_tallies.clear()
        self._model_tallies.update(model_tallies)
        self._retired.clear()
        self._retired.update(retired)
        self.last_seq, self._recent = last_seq, recent
        self._ledger, self._audits = self._new_ledger(), audits
        self._pooled_audits = Counter()
        for counts in audits.values():
            self._pooled_audits.update(counts)
        self._seconds, self._model_seconds = seconds, model_seconds

    def add_arm(self, role: str, arm: str) -> None:
        """Add a live arm (a new detour path); idempotent."""
        if (
            arm not in self.policies[role].arms
            and (role, arm) not in self.retired
            and not self._archived(role, arm)
        ):
            self.policies[role].add_arm(arm)

    def retire(self, role: str, arm: str, reason: str) -> None:
        """Remove an arm from its policy for good; its tally stays for the record."""
        if arm in self.policies[role].arms:
            self.policies[role].remove_arm(arm)
        self._retired[(role, arm)] = reason

    def archive(self, role: str, arm: str) -> None:
        """Drop a retired arm's statistics from memory for good (the outcome log keeps its
        outcomes); the owner's `archived` predicate says it is archived from now on. Idempotent."""
        if arm in self.policies[role].arms:
            self.policies[role].remove_arm(arm)
        self._tallies.pop((role, arm), None)
        for key in [key for key in self._model_tallies if key[1:] == (role, arm)]:
            del self._model_tallies[key]
        self._retired.pop((role, arm), None)
        if role == "model":
            self._model_seconds.forget(arm)
        elif role in TIMED_ROLES:
            self._seconds[role].forget(arm)


def _moved(tally: ArmTally, change: tuple[Evidence | None, Evidence | None]) -> ArmTally:
    """`tally` with a decision's old evidence taken out and its new put in."""
    old, new = change
    if old is not None:
        tally = tally.minus(old.reward, old.weight)
    if new is not None:
        tally = tally.plus(new.reward, new.weight)
    return tally


def _context_key(context: Sequence[float]) -> ContextKey:
    return HashedTuple(map(float, context))  # hashed once: the dicts above are keyed by it


def _context_array(context: Sequence[float]) -> np.ndarray:
    array = np.array(context, dtype=float)  # a copy, never the caller's own array
    array.flags.writeable = False  # shared by every reader of the anchor (`PerAnchor`)
    return array
