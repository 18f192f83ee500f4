"""A client's expected answer is its claim: scored as its own source, and its own to correct.

The issue: an expected answer of "43" for 6 x 7 was stored as a `checker` 0.0, which outranks a
user, so a later user 1.0 never took effect and nothing could undo it.
"""

from typing import Any

import pytest

from engine.domain.config import EngineConfig
from engine.errors import InvalidQueryError, InvalidRewardError, OutcomeConflictError
from engine.orchestration.facade import Engine
from tests.unit.engine.conftest import World

QUERY = "What is 3 + 4?"  # the "digits" path answers 7


def wrong_claim(text: str) -> float:
    """The client's check against its wrong expected answer, 8."""
    return 1.0 if text.strip().endswith("Answer: 8") else 0.0


def path_mean(engine: Engine, arm: str) -> tuple[float, float | None]:
    row = next(a for a in engine.arms() if (a.role, a.arm_id) == ("path", arm))
    return (row.pulls, row.mean_reward)


def claimed(world: World, source: str = "user", **config: Any) -> tuple[Engine, str, str]:
    engine = world.engine(config=EngineConfig(seed=5, **config))
    decision = engine.decide(QUERY, checker=wrong_claim, checked_by=source)
    return engine, decision.id, decision.path.arm_id


def test_the_check_is_recorded_as_the_clients_score_and_says_who_set_it(world: World) -> None:
    engine, decision_id, _arm = claimed(world, " User : Ann ")
    decision = engine.get_decision(decision_id)
    assert [(o.source, o.reward, o.revision) for o in decision.outcomes] == [("user:ann", 0.0, 0)]
    check = next(step for step in decision.trace if step.stage == "checker")
    assert check.outputs == {"reward": 0.0, "set_by": "user:ann"}


def test_the_client_corrects_its_own_claim_and_the_correction_takes_effect(
    world: World,
) -> None:
    engine, decision_id, arm = claimed(world)
    assert path_mean(engine, arm) == (1.0, 0.0)
    with pytest.raises(OutcomeConflictError, match="replace=True"):
        engine.record_outcome(decision_id, "user", 1.0)
    corrected = engine.record_outcome(decision_id, "user", 1.0, replace=True)
    assert (corrected.applied, corrected.revision) == (True, 1)
    assert path_mean(engine, arm) == (1.0, 1.0)  # one decision, still one piece of evidence
    engine.record_outcome(decision_id, "user", 0.0, replace=True)  # and back again
    assert path_mean(engine, arm) == (1.0, 0.0)
    assert path_mean(world.engine(), arm) == (1.0, 0.0)  # a restart replays the same


def test_another_client_does_not_overrule_the_claim(world: World) -> None:
    engine, decision_id, arm = claimed(world)
    engine.record_outcome(decision_id, "user:bob", 1.0)  # equally trusted, and later: recorded
    assert path_mean(engine, arm) == (1.0, 0.0)


def test_the_programs_own_checker_still_outranks_a_user(world: World) -> None:
    engine = world.engine()
    decision = engine.decide(QUERY, checker=wrong_claim)  # no checked_by: the engine's checker
    assert decision.outcomes[0].source == "checker"
    check = next(step for step in decision.trace if step.stage == "checker")
    assert check.outputs["set_by"] == "checker"
    engine.record_outcome(decision.id, "user", 1.0)
    assert path_mean(engine, decision.path.arm_id) == (1.0, 0.0)


def test_no_referee_audit_beside_a_clients_claim(world: World) -> None:
    """An audit measures the referee against ground truth; a client's claim is not that."""
    engine, decision_id, _arm = claimed(world, referee_audit=1.0)
    assert [o.source for o in engine.get_decision(decision_id).outcomes] == ["user"]
    checked = world.engine(config=EngineConfig(seed=5, referee_audit=1.0))
    audited = checked.decide(QUERY, checker=wrong_claim)
    assert [o.source for o in audited.outcomes] == ["checker", "referee"]


@pytest.mark.parametrize(
    ("checked_by", "with_checker", "error", "fragment"),
    [
        ("checker", True, InvalidRewardError, "is reserved"),
        ("bogus", True, InvalidRewardError, "user:<name>"),
        ("user", False, InvalidQueryError, "give a checker"),
    ],
)
def test_a_bad_setter_is_refused_before_anything_is_decided(
    world: World, checked_by: str, with_checker: bool, error: type[Exception], fragment: str
) -> None:
    engine = world.engine()
    with pytest.raises(error, match=fragment):
        engine.decide(QUERY, checker=wrong_claim if with_checker else None, checked_by=checked_by)
    assert engine.outcome_log() == []
