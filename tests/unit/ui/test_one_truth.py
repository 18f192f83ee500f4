"""One truth per card: the card and the progress log read the same trace, for every shape of it
(a tool answering directly, a fallback, no tool left, a seed used or skipped), and neither shows
a path, a score or a text that the trace does not back."""

from collections.abc import Callable

import pytest

from engine import Decision, Engine, Seed, TraceStep
from ui.markup import plain_text
from ui.playground.views import SEED_STAGES, TOOL_STAGES, card_markdown, cost_markdown
from ui.progress import describe_stage

QUERY = "A bus has 12 people. At the first stop 5 get off and 8 get on. How many now?"


def _tool(name: str, ok: bool, output: str = "") -> TraceStep:
    return TraceStep(
        stage="tool",
        reason="done" if ok else "fault",
        inputs={"tool": name, "argument": QUERY},
        outputs={"ok": ok, "output": output, "fully_parsed": ok},
        error=None if ok else f"ToolRefusalError: {name} cannot read it",
    )


def _fallback(refused: str, arm: str, untried: list[str]) -> TraceStep:
    return TraceStep(
        stage="tool_fallback",
        reason="chose_by_posterior",
        inputs={"refused": refused},
        outputs={"arm": arm, "propensity": 0.5, "untried": untried},
    )


DIRECT_ANSWER = TraceStep(
    stage="answer",
    reason="done",
    inputs={"tool": "calculator", "direct": True},
    outputs={"answer": "Answer: 15", "provenance": "parsed the whole question"},
)
MODEL_ANSWER = TraceStep(stage="answer", reason="done", inputs={"path": "p"}, outputs={})
SEARCH = TraceStep(stage="search", reason="done", outputs={"sources": ["a.md", "b.md"]})
PASSAGES_OK = TraceStep(stage="seed_check", reason="done", outputs={"ok": True, "score": 1.0})
BRIEF_EMPTY = TraceStep(stage="seed", reason="weak_seed", error="the brief is empty")
BRIEF = TraceStep(stage="seed", reason="done", outputs={"brief": "Buses carry people."})
GATE = TraceStep(stage="seed", reason="skipped", outputs={"why": "the gate said no"})

# name -> (trace, the tool arm picked, the seed's brief): the shapes the issue names
SHAPES: dict[str, tuple[list[TraceStep], str, str | None]] = {
    "tool direct": (
        [GATE, _tool("calculator", True, "12 - 5 + 8 = 15"), DIRECT_ANSWER],
        "calculator+direct",
        None,
    ),
    "fallback": (
        [
            GATE,
            _tool("calculator", False),
            _fallback("calculator", "units", ["none", "units"]),
            _tool("units", True, "15"),
            MODEL_ANSWER,
        ],
        "calculator",
        None,
    ),
    "no tool left": (
        [
            GATE,
            _tool("calculator", False),
            _fallback("calculator+direct", "none", ["none"]),
            MODEL_ANSWER,
        ],
        "calculator+direct",
        None,
    ),
    "seed used": ([SEARCH, PASSAGES_OK, BRIEF, MODEL_ANSWER], "none", "Buses carry people."),
    "seed written empty": ([SEARCH, PASSAGES_OK, BRIEF_EMPTY, MODEL_ANSWER], "none", None),
}


def _decision(engine: Engine, name: str) -> Decision:
    trace, tool, brief = SHAPES[name]
    base = engine.decide("What is 1 + 1?")
    answer = "Answer: 15"
    return base.model_copy(
        update={
            "trace": trace,
            "tool": base.tool.model_copy(update={"arm_id": tool}),
            "seed": Seed(brief=brief),
            "answer": answer,
            "outcomes": [],
        }
    )


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_every_tool_and_seed_line_of_the_progress_log_is_on_the_card(
    engine: Engine, name: str
) -> None:
    decision = _decision(engine, name)
    card = card_markdown(decision)
    # the seed step's own line is the card's verdict on the seed, said once (below)
    steps = [s for s in decision.trace if s.stage in TOOL_STAGES + SEED_STAGES]
    said = [describe_stage(s) for s in steps if s.stage != "seed"]
    assert said or name == "tool direct"
    assert [line for line in said if f"  - {line}" not in card] == []
    for seed in (s for s in decision.trace if s.stage == "seed"):
        told = str(seed.outputs.get("why") or seed.outputs.get("brief") or seed.error)
        assert max(card.count(told), card.count(plain_text(told))) == 1, (told, card)


CLAIMS: dict[str, Callable[[str], bool]] = {
    # a claim the card may make only when the trace backs it
    "no tool left": lambda card: "none was left, so the model answers alone" in card,
    "the path was not used": lambda card: "**Reasoning path:** none used" in card,
    "the seed was used": lambda card: "**Thinking seed** (the brief passed" in card,
}
BACKED = {
    "tool direct": {"the path was not used"},
    "fallback": set(),
    "no tool left": {"no tool left"},
    "seed used": {"the seed was used"},
    "seed written empty": set(),
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_the_card_claims_only_what_its_trace_holds(engine: Engine, name: str) -> None:
    card = card_markdown(_decision(engine, name))
    assert {claim for claim, made in CLAIMS.items() if made(card)} == BACKED[name]


def test_the_passages_check_and_the_empty_brief_tell_one_story(engine: Engine) -> None:
    """The 17 * 23 card said "Checked the seed: relevant enough" above "not used (the brief is
    empty)": the check was of the passages, and the card says which step failed."""
    card = card_markdown(_decision(engine, "seed written empty"))
    assert "Checked the passages: relevant enough (score 1.00)" in card
    assert "the passages were relevant, but the model's brief of them was not usable" in card
    assert "Checked the seed" not in card


def test_a_refused_tools_outcome_names_the_tool_that_gave_the_output(engine: Engine) -> None:
    from engine import OutcomeResult

    refused = OutcomeResult(
        decision_id="d", seq=3, source="tool", reward=0.0, weight=1.0, applied=True, roles=["path"]
    )
    decision = _decision(engine, "fallback").model_copy(update={"outcomes": [refused]})
    card = card_markdown(decision)
    said = "**Tool outcome:** 0.00 for `calculator`, which refused or failed; the output came from"
    assert f"{said} `units`" in card


def test_an_answer_no_check_verified_says_so_and_a_checked_one_does_not(engine: Engine) -> None:
    from engine import OutcomeResult

    decision = _decision(engine, "fallback")
    assert "*Unverified:* no check confirmed it" in card_markdown(decision)
    right = OutcomeResult(
        decision_id="d",
        seq=1,
        source="checker",
        reward=1.0,
        weight=1.0,
        applied=True,
        roles=["path"],
    )
    checked = card_markdown(decision.model_copy(update={"outcomes": [right]}))
    assert "**Verified:** the exact check against your expected answer says it is right." in checked
    assert "Unverified" not in checked
    referee = right.model_copy(update={"source": "referee", "weight": 0.5})
    judged = card_markdown(decision.model_copy(update={"outcomes": [referee]}))
    assert "*Unverified:*" in judged  # a referee's score is the model's view, not a check


def test_model_text_is_text_and_the_answer_label_is_not_doubled(engine: Engine) -> None:
    decision = _decision(engine, "fallback")
    listy = decision.model_copy(update={"answer": "1. Add them\n2. **Subtract** <b>x</b>"})
    card = card_markdown(listy)
    assert "1\\. Add them  \n2\\. \\*\\*Subtract\\*\\* \\<b\\>x\\<\\/b\\>" in card
    single = card_markdown(decision)
    answer_part = single.split("**Reasoning path")[0]
    assert answer_part.count("Answer") == 1  # the heading; "Answer: 15" shows as "15"
    assert "\n15\n" in answer_part


def test_one_model_call_is_singular(engine: Engine) -> None:
    from engine import Cost

    decision = _decision(engine, "fallback")
    assert "**Cost:** 1 model call," in cost_markdown(
        decision.model_copy(update={"cost": Cost(calls=1)})
    )
    assert "**Cost:** 2 model calls," in cost_markdown(
        decision.model_copy(update={"cost": Cost(calls=2)})
    )
