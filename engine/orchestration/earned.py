"""Arms that earn their place: which arms a new kind of query no longer explores.

An arm is *dominated* on a kind when the kind has enough evidence to know its leader (some arm's
P(best) there is at least `KNOWN_LEADER`) and the arm's P(best) there is below `DOMINATED`. An
arm dominated on every such kind, where there are at least `MIN_KINDS` of them, leaves the set a
cold draw explores (`selection.within`). It stays an arm of the policy: a kind that has learned
it keeps drawing it by its posterior, and when evidence changes (a drift detector resets a
kind, or a kind finds the arm useful) it is no longer dominated everywhere and returns at the
next recount.

Why: a new kind explored every path and tool alike, including paths that make the small model
ramble (`plan_then_solve` spent 6.9 s writing out its own instructions on a capital question).
Measured in docs/benchmarks.md, "Arms a new kind explores".
"""

from collections.abc import Mapping, Sequence

from engine.orchestration.learner import Learner

__all__ = ["DOMINATED", "KNOWN_LEADER", "MIN_KINDS", "EarnedArms", "dominated_arms"]

KNOWN_LEADER = 0.5  # a kind whose best arm is this likely best knows its leader
DOMINATED = 0.02  # an arm this unlikely to be best there is dominated on that kind
MIN_KINDS = 2  # one kind alone never rules an arm out for every other kind
# P(best) costs a Monte Carlo pass per kind: the dominated sets are recounted after this many
# new outcomes, not on every cold draw.
RECOUNT_EVERY = 25


def dominated_arms(prob_best_by_kind: Sequence[Mapping[str, float]]) -> frozenset[str]:
    """The arms dominated on every kind that knows its leader (see the module).

    >>> kinds = [{"a": 0.9, "b": 0.09, "c": 0.01}, {"a": 0.6, "b": 0.395, "c": 0.005}]
    >>> sorted(dominated_arms(kinds))
    ['c']
    >>> sorted(dominated_arms(kinds[:1]))  # one kind alone rules nothing out
    []
    """
    knowing = [row for row in prob_best_by_kind if row and max(row.values()) >= KNOWN_LEADER]
    if len(knowing) < MIN_KINDS:
        return frozenset()
    arms = set(knowing[0])
    return frozenset(arm for arm in arms if all(row.get(arm, 0.0) < DOMINATED for row in knowing))


class EarnedArms:
    """The dominated arms of each role, recounted as outcomes arrive (owned by the arm book,
    read under its lock)."""

    def __init__(self) -> None:
        self._counted: dict[str, tuple[int, frozenset[str]]] = {}

    def dominated(self, role: str, learner: Learner) -> frozenset[str]:
        counted = self._counted.get(role)
        if counted is not None and learner.last_seq - counted[0] < RECOUNT_EVERY:
            return counted[1]
        policy = learner.policies[role]
        rows = [
            policy.prob_best(learner.policy_context(role, context))
            for context in learner.contexts_seen
        ]
        dominated = dominated_arms(rows)
        if len(dominated) >= len(policy.arms):  # never rule every arm out
            dominated = frozenset()
        self._counted[role] = (learner.last_seq, dominated)
        return dominated
