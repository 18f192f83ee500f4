"""Aha detours: triggered with a reason, new arms with their own statistics, retired with one."""

from engine.domain.config import DetourRules, EngineConfig
from engine.stages.detour import detour_trigger

QUERY = "What is the sum 3 + 4?"
RULES = DetourRules(prob_best_floor=0.0, failure_streak=2, retire_min_pulls=2, retire_below=0.3)


def failing(text: str) -> float:
    return 0.0


def test_repeated_failures_create_detour_arms_that_are_retired_when_they_keep_failing(world):
    engine = world.engine(config=EngineConfig(seed=3, detour=RULES), cold_pulls=1)
    first = [engine.decide(QUERY, checker=failing) for _ in range(2)]
    assert [d.step("detour").reason for d in first] == ["skipped", "skipped"]

    decision = engine.decide(QUERY, checker=failing)
    step = decision.step("detour")
    assert step.reason == "detour_trigger"
    assert "failures repeat" in step.inputs["trigger"]
    new_arms = step.outputs["new_arms"]
    assert len(new_arms) == 2
    assert all(arm.startswith("detour-") for arm in new_arms)
    assert decision.path.arm_id in new_arms
    assert decision.path.reason == "detour_trigger"
    catalog = {a.arm_id: a for a in world.store.list_arms("default")}
    assert catalog[new_arms[0]].origin == "detour"
    assert "failures repeat" in catalog[new_arms[0]].definition["created_because"]
    assert "STRATEGY=" in catalog[new_arms[0]].definition["prompt"]

    target = decision.path.arm_id
    world.rating_favourite = target  # the model keeps proposing the new path while it is cold
    retired_trace = None
    for _ in range(8):
        later = engine.decide(QUERY, checker=failing)
        steps = [s for s in later.trace if s.reason == "retired"]
        if steps:
            retired_trace = steps[0]
            break
    assert retired_trace is not None, "a detour arm that keeps failing must be retired"
    assert retired_trace.inputs["arm"] in new_arms
    target = retired_trace.inputs["arm"]
    assert "keeps failing" in retired_trace.outputs["why"]
    record = next(a for a in world.store.list_arms("default") if a.arm_id == target)
    assert record.retired_at is not None
    assert "keeps failing" in (record.retired_reason or "")
    row = next(r for r in engine.arms() if r.arm_id == target)
    assert row.retired
    assert row.pulls >= RULES.retire_min_pulls
    assert target not in [c.arm_id for c in engine.decide(QUERY, checker=failing).candidates]


def test_another_process_adopts_detour_arms_and_retirements(world) -> None:
    config = EngineConfig(seed=3, detour=RULES)
    engine = world.engine(config=config, cold_pulls=1)
    for _ in range(3):
        decision = engine.decide(QUERY, checker=failing)
    new_arms = decision.step("detour").outputs["new_arms"]
    other = world.engine(config=config, cold_pulls=1)
    live = {r.arm_id for r in other.arms() if r.role == "path" and not r.retired}
    assert set(new_arms) <= live
    assert {r.arm_id: r.pulls for r in other.arms()} == {r.arm_id: r.pulls for r in engine.arms()}


def test_low_confidence_everywhere_triggers_a_detour() -> None:
    rules = DetourRules(prob_best_floor=0.5)
    reason = detour_trigger({"a": 0.34, "b": 0.33, "c": 0.33}, [], rules, any_cold=False)
    assert reason is not None
    assert "highest P(best) is 0.34" in reason
    assert detour_trigger({"a": 0.34, "b": 0.66}, [], rules, any_cold=False) is None
    assert detour_trigger({"a": 0.1, "b": 0.1}, [], rules, any_cold=True) is None


def test_a_malformed_detour_degrades_without_new_arms(world) -> None:
    world.overrides["detour"] = lambda request: '{"paths": []}'
    engine = world.engine(config=EngineConfig(seed=3, detour=RULES), cold_pulls=1)
    for _ in range(3):
        decision = engine.decide(QUERY, checker=failing)
    assert decision.step("detour").reason == "fault"
    assert decision.degraded
    assert not [a for a in world.store.list_arms("default") if a.origin == "detour"]
