"""A seed that informs and never answers; a new kind's tool found by the tools' own readers."""

import re
from dataclasses import replace

import pytest

from engine.adapters.tools import ToolRegistry, standard_tools
from engine.domain.records import LLMRequest, Passage, ToolResult
from engine.stages.seed_check import degeneracy, inform_only
from engine.stages.tools import fallback_candidates, reading_tool, split_arm, tool_arms
from tests.unit.engine.conftest import FakeToolBox

ADDITION = [Passage("Addition combines two numbers into their sum.", "notes/addition.md")]

# Planted queries: each brief states the answer in some way; none of that may reach the answer.
PLANTED = [
    ("Ana has 3 apples and gets 4 more. How many apples?", "Ana ends with 7 apples [notes]."),
    ("What is 12 * 3?", "Multiplication repeats addition [notes/addition.md]. 12 * 3 = 36."),
    ("What is 2 + 2?", "Addition combines numbers. The answer is four."),
    ("How many days are in 3 weeks?", "A week has 7 days, so the result is 21 days."),
    ("What is 5 + 5?", "Sums are easy.\nAnswer: 10"),
]


@pytest.mark.parametrize(("query", "brief"), PLANTED)
def test_a_planted_answer_never_survives_the_check(query: str, brief: str) -> None:
    kept, dropped = inform_only(query, brief, ADDITION)
    assert dropped
    for leaked in ("7 apples", "36", "four", "21", "10"):
        if leaked in brief:
            assert leaked not in kept


def test_facts_methods_and_citations_are_kept() -> None:
    brief = (
        "Addition combines two numbers into their sum [notes/addition.md]. "
        "Add the first number to the second."
    )
    kept, dropped = inform_only("What is 3 + 4?", brief, ADDITION)
    assert (kept, dropped) == (brief, [])


def test_numbers_from_the_query_and_passages_are_facts_not_answers() -> None:
    passages = [Passage("A week has 7 days.", "notes/calendar.md")]
    kept, dropped = inform_only("How many days are in 3 weeks?", "A week has 7 days.", passages)
    assert (kept, dropped) == ("A week has 7 days.", [])


def test_degenerate_briefs_are_named() -> None:
    loop = "The rule applies to the box itself. " * 12
    assert degeneracy("How many boxes?", loop) == ["the brief repeats itself in a loop"]
    query = "How many apples does Ana have at the end?"
    assert degeneracy(query, f"Question: {query}") == ["the brief echoes the prompt"]
    assert degeneracy(query, "Counting adds one item at a time [notes].") == []


def test_a_looping_or_answering_brief_is_not_used(world) -> None:
    world.overrides["seed"] = lambda request: "So 3 + 4 = 7. " * 10
    llm = world.llm()
    decision = world.engine(llm, always_seed=True).decide("What is the sum 3 + 4?")
    assert decision.seed.weak
    assert decision.seed.brief is None
    step = decision.step("seed")
    assert step.reason == "weak_seed"
    assert "loop" in (step.error or "")
    answer_prompt = next(r for r in llm.requests if r.purpose == "answer").messages[-1].content
    assert "= 7" not in answer_prompt


@pytest.mark.parametrize(
    ("query", "tool"),
    [
        ("What is 17 + 25?", "calculator"),
        ("Convert 3 kilometres to metres.", "units"),
        ("What comes next: 2, 4, 6, 8?", "numbers"),
        ("Continue the sequence 1, 3, 5", "numbers"),
        ("How many times does the letter 'r' appear in 'strawberry'?", "text"),
        ("What is the first letter of the word 'apple'?", "text"),
        ("Who wrote Hamlet?", None),
        ("Is a tomato a fruit or a vegetable?", None),
        ("Summarise the plot of Hamlet in two sentences.", None),
    ],
)
def test_the_exact_tools_read_a_new_kinds_question_on_their_own(
    query: str, tool: str | None
) -> None:
    toolbox = ToolRegistry(standard_tools())
    arms = tool_arms(toolbox.names())
    # a generous deadline: the first unit question of a process loads pint and quantulum3
    found = reading_tool(toolbox, query, arms, timeout_s=120.0)
    assert (None if found is None else split_arm(found)[0]) == tool
    assert reading_tool(toolbox, query, ["none"], timeout_s=120.0) is None  # only what is offered


def test_after_every_exact_tool_refused_a_search_needs_its_kind_to_have_learned_it() -> None:
    probabilities = {"none": 0.1, "calculator": 0.2, "text": 0.1, "local_search": 0.6}
    assert fallback_candidates(probabilities, ["calculator"], cold=["local_search"]) == {
        "text": 0.1
    }
    every_exact = ["calculator", "text"]
    assert fallback_candidates(probabilities, every_exact, cold=["local_search"]) == {"none": 0.1}
    learned = fallback_candidates(probabilities, every_exact, cold=[])
    assert learned == {"none": 0.1, "local_search": 0.6}
    unhelpful = {**probabilities, "none": 0.7, "local_search": 0.05}
    assert fallback_candidates(unhelpful, every_exact, cold=[]) == {"none": 0.7}


class ReadingToolBox(FakeToolBox):
    """The test world's tools, with a calculator that says when it read the whole question."""

    def run(self, name: str, argument: str, timeout_s: float) -> ToolResult:
        result = super().run(name, argument, timeout_s)
        if name == "calculator" and re.search(r"\d\s*\+\s*\d", argument):
            return replace(result, value=result.output, fully_parsed=True)
        return result


def test_a_tool_that_reads_the_whole_question_leads_a_new_kinds_cold_start(world) -> None:
    world.rating_tool = "broken_search"  # the model would send arithmetic to a search
    world.toolbox = ReadingToolBox()
    engine = world.engine(tools=True, rating=True)
    query = "What is the sum 3 + 4?"
    decision = engine.decide(query, checker=world.checker_for(query))
    assert (decision.tool.arm_id, decision.tool.reason) == ("calculator+direct", "cold_start")
    assert decision.answer == "Answer: 7"  # the result itself: no answer call
    spelling = engine.decide("What is the first letter of apple?")
    assert not spelling.tool.arm_id.startswith("calculator") or spelling.tool.reason != "cold_start"


@pytest.mark.parametrize("brief_helps", [False, True])
def test_the_seed_gate_learns_per_family_whether_a_seed_helps(world, brief_helps: bool) -> None:
    from engine.domain.config import DetourRules, EngineConfig

    def answer(request: LLMRequest) -> str:
        briefed = "<seed>" in request.messages[-1].content
        return "Answer: 7" if briefed == brief_helps else "Answer: unsure"

    world.overrides["answer"] = answer
    config = EngineConfig(seed=2, detour=DetourRules(prob_best_floor=0.0), seed_gate=True)
    engine = world.engine(config=config)
    query = "What is the sum 3 + 4?"
    skipped = [
        engine.decide(query, checker=world.checker_for(query)).step("seed").reason == "skipped"
        for _ in range(40)
    ]
    late = sum(skipped[-10:])
    assert late <= 2 if brief_helps else late >= 8
