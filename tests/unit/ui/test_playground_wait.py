"""The card is the truth, at once (issue 40): "Done" comes with the card, its seconds are the
seconds waited, the stage at work is named at every moment, the answer is said once and copied
as shown, no rating is claimed that did not run, and the seed's verdict is said once."""

import re
from pathlib import Path

from engine import Decision, Engine, TraceStep
from engine.adapters.llm.scripted import ScriptedLLM
from engine.adapters.memory_searcher import InMemorySearcher
from engine.compose import build_engine
from engine.domain.records import LLMRequest
from engine.settings import Settings
from tests.unit.ui.conftest import PASSAGES
from ui.playground import Actions
from ui.playground.views import card_markdown, cost_markdown, shown_answer, trace_rows

CANBERRA = "The capital of Australia is Canberra."


class SteppedClock:
    """A stand-in clock that moves only when told: each model call takes `call_s` on it."""

    def __init__(self, call_s: float) -> None:
        self.now = 100.0
        self.call_s = call_s

    def __call__(self) -> float:
        return self.now

    def answer(self, request: LLMRequest) -> str:
        del request
        self.now += self.call_s
        return f"{CANBERRA}\n\nAnswer: {CANBERRA}"


def _engine(home: Path, clock: SteppedClock) -> Engine:
    settings = Settings(home=home, store_url="memory", policy_seed=3)
    return build_engine(
        settings, llm=ScriptedLLM(clock.answer), searcher=InMemorySearcher(PASSAGES)
    )


def test_done_comes_with_the_card_and_both_say_the_seconds_waited(tmp_path: Path) -> None:
    clock = SteppedClock(call_s=31.0)
    actions = Actions(_engine(tmp_path, clock), clock=clock)
    pressed = clock() - 2.0  # Ask was pressed 2 s before the run began (the queue)
    updates = list(actions.ask_live("What is the capital of Australia?", "", "", "", pressed))
    (done_lines, card), (last_lines, plotted) = updates[-2:]
    assert card is not None
    assert plotted is not None
    done = re.search(r"- \*\*Done\*\* in (\d+\.\d) s\.$", done_lines)
    assert done is not None, done_lines
    waited = float(done.group(1))
    assert waited >= 33.0  # the 31 s call and the 2 s before the run: what the user waited
    assert f"you waited {waited:.1f} s, from Ask to this card" in card.cost
    assert re.search(r"\(1 model call took \d+\.\d s of it\)", card.cost)
    # the card and "Done" in one update; the plot alone follows, with nothing else changed
    assert card.card
    assert card.posteriors is None
    assert last_lines == done_lines
    assert plotted.posteriors is not None
    assert plotted.card == card.card
    assert plotted.cost == card.cost


def test_a_decision_with_no_model_call_still_says_how_long_it_took(engine: Engine) -> None:
    decision = engine.decide("What is 17 * 23?")
    assert decision.cost.calls == 0  # the calculator's result answered
    said = cost_markdown(decision, 31.2)
    assert said.startswith("**Time:** you waited 31.2 s, from Ask to this card (no model call)")
    assert "0.00 s" not in said
    assert "free (no model call)" in said
    # drawn again without a wait measured, it claims none
    assert cost_markdown(decision).startswith("**Time:** no model call\n\n**Cost:**")


def test_the_answer_is_said_once_and_copied_as_shown(tmp_path: Path) -> None:
    clock = SteppedClock(call_s=0.0)
    view = Actions(_engine(tmp_path, clock), clock=clock).ask(
        "What is the capital of Australia?", "", ""
    )
    answer_part = view.card.split("*Unverified:*")[0]
    assert answer_part.count("Canberra") == 1, answer_part
    assert view.answer == CANBERRA  # the copy field holds what the card shows
    assert "The capital of Australia is Canberra\\." in answer_part


def test_the_copy_field_holds_the_cards_answer_for_a_tools_result(engine: Engine) -> None:
    view = Actions(engine).ask("What is 17 * 23?", "", "")
    assert view.answer == "391"
    assert "\n391\n" in view.card
    assert "Answer: 391" not in view.card.split("**Kind of query")[0]


def test_shown_answer_keeps_working_and_a_result_that_adds_to_it() -> None:
    assert shown_answer("Answer: 210") == "210"
    assert shown_answer("**Answer:** 210") == "210"
    kept = "3.5 hours * 60 = 210 minutes.\nAnswer: 210"
    assert shown_answer(kept) == kept  # the result adds to the working: both stay
    assert shown_answer("It is Canberra\nanswer: it is CANBERRA!") == "It is Canberra"
    assert shown_answer("Paris\nAnswer: Paris, France") == "Paris\nAnswer: Paris, France"
    assert shown_answer("") == shown_answer(None) == ""


def test_the_stage_at_work_is_named_at_every_moment(engine: Engine) -> None:
    readings = iter(range(1000))
    actions = Actions(engine, clock=lambda: float(next(readings)))
    updates = [lines for lines, view in actions.ask_live("What is 17 * 23?", "", "") if not view]
    working = [lines.splitlines()[-1] for lines in updates]
    assert all(line.startswith("- *") for line in working), working
    assert not [line for line in working if "next step" in line]
    assert re.fullmatch(
        r"- \*Finding the kind of query\.\.\. \(\d+ s; \d+ s in all\)\*", working[0]
    )
    # after each stage, the one that follows it, by name
    after = {}
    for lines in updates:
        *finished, now = lines.splitlines()
        if finished:
            after[finished[-1].split(" `")[0].split(":")[0]] = now
    assert after["- Chose the reasoning path"].startswith("- *Choosing the tool...")
    assert after["- Chose the tool"].startswith("- *Running the tool `calculator`...")


def _choice_step(stage: str, reason: str, why: str | None) -> TraceStep:
    outputs = {"arm": "calculator+direct", "propensity": 1.0, "why": why}
    return TraceStep(stage=stage, reason=reason, outputs=outputs)


def test_no_rating_is_claimed_where_none_ran(engine: Engine) -> None:
    decision = engine.decide("What is 17 * 23?")
    assert not [step for step in decision.trace if step.stage == "rating"]  # off by default
    rows = trace_rows(decision)
    card = card_markdown(decision)
    assert not [row for row in rows if "rating" in " ".join(map(str, row))], rows
    assert "rating" not in card
    # a cold pick stored with no words of its own (an older decision) claims no rating either
    bare = decision.model_copy(
        update={"trace": [_choice_step("tool_selection", "cold_start", None)]}
    )
    [row] = trace_rows(bare)
    assert "rating" not in " ".join(map(str, row))
    assert "explored" in row[1]
    tool = bare.tool.model_copy(update={"reason": "cold_start"})
    assert "rating" not in card_markdown(bare.model_copy(update={"tool": tool}))


def _seedless(decision: Decision, trace: list[TraceStep]) -> Decision:
    return decision.model_copy(update={"trace": trace})


def test_the_seed_is_said_once(engine: Engine) -> None:
    decision = engine.decide("What is the capital of Australia?")
    gate = next(step for step in decision.trace if step.stage == "seed")
    assert gate.reason == "skipped"
    card = card_markdown(decision)
    assert card.count(str(gate.outputs["why"])) == 1, card
    assert card.count("Thinking seed") == 1
