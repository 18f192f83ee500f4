"""A seed that informs and never answers; a tool prior that follows what the query is."""

import pytest

from engine.domain.records import LLMRequest, Passage
from engine.stages.seed_check import degeneracy, inform_only
from engine.stages.tools import prior_tool

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
    ],
)
def test_the_prior_tool_follows_the_kind_of_query(query: str, tool: str | None) -> None:
    tools = ["none", "calculator", "units", "text", "numbers", "local_search"]
    assert prior_tool(query, tools) == tool
    assert prior_tool(query, ["none"]) is None  # never a tool that is not available


def test_the_prior_leads_the_cold_start_over_the_models_pick(world) -> None:
    world.rating_tool = "broken_search"  # the model would send arithmetic to a search
    engine = world.engine(tools=True)
    query = "What is the sum 3 + 4?"
    decision = engine.decide(query, checker=world.checker_for(query))
    # the exact tool's direct arm first (`tools.prior_tool`); this world's stand-in calculator
    # does not say it read the whole question, so the model still writes the answer
    assert (decision.tool.arm_id, decision.tool.reason) == ("calculator+direct", "cold_start")
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
