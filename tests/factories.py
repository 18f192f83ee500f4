"""Records with sensible defaults, for every test: a test names only the fields it cares about.

decision_record("d1", path="work_backwards", tool=None, context=None)
arm_record("first_principles", retired_at=MOMENT)
learned_outcome(3, "d1", path="a", reward=1.0)
"""

from datetime import UTC, datetime
from typing import Any

from engine.domain.records import ArmRecord, DecisionRecord, LearnedOutcome

MOMENT = datetime(2026, 11, 30, 12, 0, 0, 123456, tzinfo=UTC)


def decision_record(
    decision_id: str,
    namespace: str = "default",
    path: str = "first_principles",
    tool: str | None = "none",
    *,
    propensity: float = 0.5,
    **changes: Any,
) -> DecisionRecord:
    """A decision that chose `path` (and `tool`, unless None), each with `propensity`."""
    choices = {"path": path} | ({"tool": tool} if tool else {})
    fields: dict[str, Any] = {
        "decision_id": decision_id,
        "namespace": namespace,
        "created_at": MOMENT,
        "query": "What is 2 + 2?",
        "context": (1.0, 0.0),
        "choices": choices,
        "propensities": {role: propensity for role in choices},
    }
    return DecisionRecord(**(fields | changes))


def arm_record(arm_id: str, namespace: str = "default", **changes: Any) -> ArmRecord:
    """A template path arm of `namespace`."""
    fields: dict[str, Any] = {
        "namespace": namespace,
        "role": "path",
        "arm_id": arm_id,
        "origin": "template",
        "definition": {"name": arm_id, "description": "", "prompt": "{query}"},
        "created_at": MOMENT,
    }
    return ArmRecord(**(fields | changes))


def learned_outcome(
    seq: int,
    decision_id: str,
    *,
    path: str = "first_principles",
    tool: str = "none",
    reward: float = 1.0,
    **changes: Any,
) -> LearnedOutcome:
    """An outcome as the learner replays it: joined with what its decision chose."""
    fields: dict[str, Any] = {
        "seq": seq,
        "decision_id": decision_id,
        "namespace": "default",
        "choices": {"path": path, "tool": tool},
        "context": (1.0, 0.0),
        "source": "checker",
        "reward": reward,
        "weight": 1.0,
    }
    return LearnedOutcome(**(fields | changes))
