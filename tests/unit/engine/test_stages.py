"""Seed check, tools and bad input, through the facade."""

import pytest

from engine.adapters.memory_searcher import InMemorySearcher
from engine.adapters.tools import Calculator, ToolRegistry
from engine.domain.models import ToolRun
from engine.domain.records import Passage
from engine.errors import InvalidQueryError
from engine.stages.tools import direct_answer, split_arm
from tests.unit.engine.conftest import known_kinds

ARITHMETIC = "What is the sum 3 + 4?"


def test_a_weak_seed_is_rebuilt_once_then_flagged_and_not_used(world) -> None:
    world.searcher = InMemorySearcher([Passage("Cats purr around the house.", "c.md")])
    llm = world.llm()
    engine = world.engine(llm, always_seed=True)
    decision = engine.decide("What is the total distance around a circle of radius 2?")
    first, rebuild = world.searcher.queries[:2], world.searcher.queries[2:]
    assert first[0] == "What is the total distance around a circle of radius 2?"
    assert rebuild[0] == "total distance around circle radius"
    assert decision.seed.weak
    assert decision.seed.rebuilt
    assert decision.seed.brief is None
    assert decision.step("seed_check").reason == "weak_seed"
    assert "no passage covers" in (decision.step("seed_check").error or "")
    assert "seed" not in [request.purpose for request in llm.requests]
    answer_prompt = next(r for r in llm.requests if r.purpose == "answer").messages[-1].content
    assert "(no background brief)" in answer_prompt


def test_a_relevant_seed_is_written_cited_and_used(world) -> None:
    llm = world.llm()
    decision = world.engine(llm, always_seed=True).decide(ARITHMETIC)
    assert not decision.seed.weak
    assert decision.seed.brief is not None
    assert [s.source for s in decision.seed.sources] == ["notes/addition.md"]
    assert decision.seed.sources[0].relevance == 1.0
    answer_prompt = next(r for r in llm.requests if r.purpose == "answer").messages[-1].content
    assert decision.seed.brief in answer_prompt


def test_an_unusable_brief_is_flagged(world) -> None:
    world.overrides["seed"] = lambda request: ""
    decision = world.engine(always_seed=True).decide(ARITHMETIC)
    assert decision.seed.weak
    assert decision.seed.brief is None
    assert decision.step("seed").reason == "weak_seed"


def test_the_llms_tool_pick_leads_while_tools_are_cold(world) -> None:
    world.rating_tool = "calculator"
    llm = world.llm()
    engine = known_kinds(world.engine(llm, tools=True, rating=True), llm)
    world.toolbox.runs.clear()
    decision = engine.decide(ARITHMETIC, checker=world.checker_for(ARITHMETIC))
    assert (decision.tool.arm_id, decision.tool.reason) == ("calculator", "cold_start")
    # the calculator was asked whether it reads the question (it does not say so), then run
    assert set(world.toolbox.runs) == {("calculator", ARITHMETIC)}
    assert decision.tool_run is not None
    assert decision.tool_run.ok
    answer_prompt = next(r for r in llm.requests if r.purpose == "answer").messages[-1].content
    assert "<tool_output>\n7\n</tool_output>" in answer_prompt


def test_a_tool_failure_is_an_outcome_for_that_tool_only(world) -> None:
    world.rating_tool = "broken_search"
    engine = world.engine(tools=True)
    # A query with no prior tool, so that the model's pick (the broken search) leads.
    decision = engine.decide("What is the first letter of apple?", checker=lambda text: 1.0)
    assert not decision.degraded
    first = next(step for step in decision.trace if step.stage == "tool")
    assert (first.reason, first.error) == ("fault", "connection refused")
    assert decision.tool.arm_id == "broken_search"  # the policy's pick, which the 0 teaches
    assert [(o.source, o.reward, o.roles) for o in decision.outcomes] == [
        ("tool", 0.0, ["tool"]),
        ("checker", 1.0, ["path", "tool", "seed", "model", "referee"]),
    ]
    stats = {(r.role, r.arm_id): (r.pulls, r.mean_reward) for r in engine.arms()}
    # One decision, one piece of evidence per role: the tool's own failure outranks the
    # answer's score for the tool, and the checker's score teaches the path.
    assert stats[("tool", "broken_search")] == (1.0, 0.0)
    assert stats[("path", decision.path.arm_id)] == (1.0, 1.0)


def test_a_refused_tool_falls_back_at_once_with_the_sequence_propensity(world) -> None:
    world.rating_tool = "broken_search"
    engine = world.engine(tools=True)
    decision = engine.decide("What is the first letter of apple?", checker=lambda text: 1.0)
    fallback = decision.step("tool_fallback")
    assert fallback.inputs["refused"] == "broken_search"
    sequence = fallback.outputs["sequence"]
    assert sequence[0] == "broken_search"
    assert sequence[-1] == fallback.outputs["arm"] != "broken_search"
    # The probability of the sequence taken: the pick's propensity times the fallback's.
    expected = decision.tool.propensity * fallback.outputs["propensity"]
    assert fallback.outputs["sequence_propensity"] == pytest.approx(expected)
    assert 0.0 < fallback.outputs["propensity"] <= 1.0
    if fallback.outputs["arm"] != "none":  # the fallback tool ran, and its run is the answer's
        assert decision.tool_run is not None
        assert decision.tool_run.tool == split_arm(fallback.outputs["arm"])[0]


def test_a_direct_arm_answers_with_a_fully_parsed_result_and_no_answer_call(world) -> None:
    world.toolbox = ToolRegistry([Calculator()])
    llm = world.llm()
    engine = world.engine(llm, tools=True)
    assert "calculator+direct" in {r.arm_id for r in engine.arms() if r.role == "tool"}
    direct = []
    for _ in range(40):
        answer_calls = sum(1 for r in llm.requests if r.purpose == "answer")
        decision = engine.decide("What is 30 - 12?", checker=lambda text: 1.0)
        if decision.tool.arm_id == "calculator+direct":
            assert sum(1 for r in llm.requests if r.purpose == "answer") == answer_calls
            direct.append(decision)
    assert direct, "the tool policy never tried the direct arm"
    for decision in direct:
        assert decision.answer == "Answer: 18"
        answered = [step for step in decision.trace if step.stage == "answer"]
        assert len(answered) == 1
        assert answered[0].inputs["direct"] is True
        assert answered[0].outputs["provenance"].startswith("parsed the whole question")


def test_a_direct_arm_leaves_a_result_not_read_whole_to_the_model(world) -> None:
    assert direct_answer(None) is None
    unsure = ToolRun(tool="calculator", argument="q", ok=True, value="4", fully_parsed=False)
    assert direct_answer(unsure) is None
    assert direct_answer(unsure.model_copy(update={"ok": False, "fully_parsed": True})) is None


def test_the_tool_step_carries_the_provenance(world) -> None:
    world.toolbox = ToolRegistry([Calculator()])
    engine = world.engine(tools=True)
    decision = engine.decide("What is 30 - 12?", checker=lambda text: 1.0)
    step = decision.step("tool")
    assert step.outputs["fully_parsed"] is True
    assert step.outputs["provenance"] == "parsed the whole question and computed 30 - 12 = 18"


@pytest.mark.parametrize(
    ("query", "message"),
    [("", "empty"), ("   ", "empty"), (42, "must be text"), ("x" * 9000, "limit is 8000")],
)
def test_a_bad_query_is_refused_and_nothing_is_stored(world, query, message) -> None:
    engine = world.engine()
    with pytest.raises(InvalidQueryError, match=message):
        engine.decide(query)
    assert world.store.outcomes_since("default", 0) == []


def test_a_stored_decision_round_trips(world) -> None:
    engine = world.engine()
    decision = engine.decide(ARITHMETIC, checker=lambda text: 1.0)
    stored = engine.get_decision(decision.id)
    assert stored.model_dump(exclude={"outcomes"}) == decision.model_dump(exclude={"outcomes"})
    record = world.store.get_decision(decision.id)
    seed_arm = "seed" if decision.seed.brief is not None else "no_seed"
    assert record.choices == {
        "path": decision.path.arm_id,
        "tool": "none",
        "seed": seed_arm,
        "model": "scripted",
    }
    assert record.propensities["path"] == decision.path.propensity
    assert record.context is None  # the kind's anchor is the context, stored once with the kind
    assert decision.kind is not None
    assert record.kind == decision.kind.id
