"""What the arm book reports of what it learned: each arm's statistics, and the whole state.

Read-only functions of the learner, called by `ArmBook.stats` and `ArmBook.describe` with the
book's lock held; apart from the book so that its module keeps to choosing and changing arms.
"""

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.domain.models import ArmStats
from engine.domain.records import ArmTally
from engine.orchestration.learner import POLICY_ROLES, Learner
from engine.stages import referee

__all__ = ["arm_stats", "describe_learning"]


def arm_stats(
    learner: Learner,
    origin: Callable[[str, str], str],
    context: Sequence[float] | None,
    *,
    model: str | None = None,
) -> list[ArmStats]:
    """Every arm's statistics, retired ones included; with a context (a kind's anchor), also
    whether each live arm is cold and its P(best) there (`engine.PROB_BEST_MEANING`). `origin(role,
    arm)` says where an arm came from. With a `model`, pulls, mean reward and outcomes count only
    the decisions that model answered, and the model role shows that model alone; cold and
    P(best) stay the policies' own, which learn across models."""
    rows = []
    for role in (role for role in POLICY_ROLES if role in learner.policies):
        policy = learner.policies[role]
        live = policy.arms
        known = live + [a for (r, a) in learner.retired if r == role]
        policy_context = learner.policy_context(role, context)
        prob_best = policy.prob_best(policy_context) if context is not None else {}
        if model is not None and role == "model":
            known = [arm for arm in known if arm == model]
        for arm in known:
            tally = (
                learner.tallies.get((role, arm), ArmTally())
                if model is None or role == "model"
                else learner.model_tallies.get((model, role, arm), ArmTally())
            )
            rows.append(
                ArmStats(
                    role=role,
                    arm_id=arm,
                    origin=origin(role, arm),
                    pulls=round(tally.pulls, 6),
                    mean_reward=tally.mean,
                    outcomes=tally.outcomes,
                    retired=arm not in live,
                    retired_reason=learner.retired.get((role, arm)),
                    cold=policy.is_cold(arm, policy_context)
                    if context is not None and arm in live
                    else None,
                    prob_best=prob_best.get(arm),
                )
            )
    return rows


def describe_learning(
    learner: Learner,
    origin: Callable[[str, str], str],
    path_names: Mapping[str, str],
    label: Callable[[Sequence[float]], str],
) -> dict[str, Any]:
    """The learning state as one JSON-safe document (see `Engine.snapshot`), less its
    namespace; `label` names each context the policies have learned from."""
    contexts = {label(key): list(key) for key in learner.contexts_seen}
    by_kind = {
        kind: {(row.role, row.arm_id): row for row in arm_stats(learner, origin, context)}
        for kind, context in contexts.items()
    }
    overall = arm_stats(learner, origin, None)
    roles: dict[str, Any] = {}
    for role, policy in learner.policies.items():
        arms = []
        for row in (row for row in overall if row.role == role):
            entry = row.model_dump(mode="json", exclude={"role", "cold", "prob_best"})
            entry["name"] = path_names[row.arm_id] if role == "path" else row.arm_id
            entry["by_kind"] = {
                kind: {"state": _state(match), "prob_best": match.prob_best}
                for kind, rows in by_kind.items()
                if (match := rows.get((role, row.arm_id))) is not None and not match.retired
            }
            arms.append(entry)
        roles[role] = {"policy": policy.name, "arms": arms}
    roles["referee"] = {
        "by_kind": {
            label(key): referee.reliability(
                *learner.audits(key), prior=0.0, prior_pairs=0.0
            ).as_trace()
            for key in learner.audited_contexts()
        }
    }
    return {"last_seq": learner.last_seq, "roles": roles}


def _state(row: ArmStats) -> str:
    return "cold" if row.cold else "confident"
