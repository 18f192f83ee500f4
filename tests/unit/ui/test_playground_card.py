"""The Ask tab's card and trace tell what happened: the tool's input and output, how the answer
ended, the seed's own check, and each stage once with why."""

from engine.domain.models import Decision, Seed, ToolRun, TraceStep
from engine.orchestration.facade import Engine
from ui.ask_commands import summary
from ui.playground import Actions
from ui.playground.views import card_markdown, trace_rows
from ui.progress import describe_stage

BUS = "A bus has 30 seats and 12 are empty. How many are taken?"


def _with_tool(decision: Decision, outputs: dict[str, object]) -> Decision:
    run = ToolRun(tool="calculator", argument=BUS, ok=True, output="30 - 12 = 18", seconds=0.01)
    step = TraceStep(
        stage="tool", reason="done", inputs={"tool": "calculator", "argument": BUS}, outputs=outputs
    )
    tool = decision.tool.model_copy(update={"arm_id": "calculator"})
    return decision.model_copy(update={"tool": tool, "tool_run": run, "trace": [step]})


def test_the_card_shows_the_tools_input_output_and_whether_it_read_it_all(
    engine: Engine,
) -> None:
    decision = engine.decide("What is 1 + 1?")
    told = _with_tool(
        decision,
        {
            "ok": True,
            "output": "30 - 12 = 18",
            "provenance": "parsed the whole question and computed 30 - 12 = 18",
            "fully_parsed": True,
        },
    )
    card = card_markdown(told)
    assert f"  - input: `{BUS}`" in card
    assert "  - output: `30 - 12 = 18`" in card
    assert "how: parsed the whole question and computed 30 - 12 = 18" in card
    assert "it read the whole question, so its result answers it" in card
    assert "ran fine" not in card
    partial = card_markdown(_with_tool(decision, {"ok": True, "fully_parsed": False}))
    assert "it did NOT read the whole question" in partial
    unknown = card_markdown(_with_tool(decision, {"ok": True, "output": "30 - 12 = 18"}))
    assert "whether it read the whole question is not known" in unknown
    line = describe_stage(_with_tool(decision, {"ok": True, "output": "18"}).trace[0])
    assert line == "Ran the tool `calculator`: gave `18`"


def test_a_loop_and_a_cut_off_are_named(engine: Engine) -> None:
    decision = engine.decide("What is the capital of Australia?")
    looping = "Canberra. " * 17
    notes = {"answer": looping, "loop": {"phrase": "Canberra", "times": 17}, "cut_off": True}
    answer = TraceStep(stage="answer", reason="done", outputs=notes)
    card = card_markdown(decision.model_copy(update={"answer": looping, "trace": [answer]}))
    assert "the model repeated 'Canberra' 17 times; folded" in card
    assert "it was cut off at the token limit, so its end is missing" in card
    assert "characters; folded" not in card
    echo_only = TraceStep(stage="answer", reason="done", outputs={"answer": "", "echoed_lines": 3})
    empty = decision.model_copy(update={"answer": "", "trace": [echo_only]})
    assert "the model only wrote the prompt back" in card_markdown(empty)


def test_the_seed_line_shows_the_briefs_check_not_the_passages_relevance(
    engine: Engine,
) -> None:
    decision = engine.decide("Is 2024 a leap year?")
    seed = Seed(brief="2024 is a leap year.", relevance=1.0)
    step = TraceStep(stage="seed", reason="done", outputs={"brief": seed.brief, "dropped": ["x"]})
    card = card_markdown(decision.model_copy(update={"seed": seed, "trace": [step]}))
    assert "relevance" not in card
    assert "the brief passed its check" in card
    assert "1 unsupported sentence dropped" in card


def test_a_seed_skipped_by_the_gate_is_said_the_same_on_card_and_trace(engine: Engine) -> None:
    decision = engine.decide("What is 1 + 1?")
    gate = TraceStep(
        stage="seed",
        reason="skipped",
        outputs={"why": "the seed gate chose no seed for 'arithmetic' queries", "p_seed": 0.2},
    )
    skipped = decision.model_copy(update={"seed": Seed(), "trace": [gate]})
    card = card_markdown(skipped)
    assert "the search found nothing" not in card
    said = "the seed gate chose no seed for 'arithmetic' queries"
    assert said in card
    assert said in trace_rows(skipped)[0][2]
    assert "building one 20% of the time" in card


def test_each_stage_is_named_once_with_why_and_no_markup(engine: Engine) -> None:
    decision = engine.decide("What is 1 + 1?")
    searches = [
        TraceStep(stage="search", reason="done", inputs={"query": "What is 1 + 1?"}),
        TraceStep(stage="search", reason="done", inputs={"query": "1 1"}),
        TraceStep(
            stage="selection", reason="cold_start", outputs={"arm": "direct", "propensity": 1.0}
        ),
        TraceStep(stage="referee", reason="done", outputs={"reward": 0.0}),
    ]
    rows = trace_rows(decision.model_copy(update={"trace": searches}))
    titles = [row[0] for row in rows]
    assert titles[:2] == ["Searched for background", "Searched again, on the keywords alone"]
    assert "did not match the question well enough" in rows[1][2]
    assert "it makes this pick every time in this state" in rows[2][2]
    assert rows[3][2] == "score 0.00 (no expected answer to check it against)"
    assert all("`" not in str(cell) for row in rows for cell in row)
    assert all(len(row) == 5 for row in rows)


def test_the_bus_question_card_with_the_scripted_model(engine: Engine) -> None:
    """The calculator cannot read "12 are empty" as arithmetic: the card says it refused and
    which tool ran instead, and shows that tool's own input and output."""
    view = Actions(engine).ask(BUS, "18", "numeric")
    assert view.decision_id is not None
    decision = engine.get_decision(view.decision_id)
    tool_steps = [step for step in decision.trace if step.stage == "tool"]
    refusals = [step for step in tool_steps if step.reason == "fault"]
    assert refusals  # the exact tools refuse a question they cannot read whole
    for step in refusals:
        said = f"  - Ran the tool `{step.inputs['tool']}`: refused or failed ({step.error})"
        assert said in view.card
    run = decision.tool_run
    if run is not None:
        assert f"  - Fell back to the tool `{run.tool}`" in view.card
        assert f"  - input: `{BUS}`" in view.card
        assert f"  - output: `{run.output}`" in view.card  # what the tool gave, right or wrong
    assert "worked this out exactly" not in view.card  # no prompt scaffolding echoed
    assert "= 42" not in view.card  # (the decision id is hex: a bare "42" may be in it)


def test_a_refused_tool_is_no_score_for_the_answer(engine: Engine) -> None:
    """No expected answer, and the referee was never measured on such questions: the tool's
    own outcome is on the card, and the answer still waits for the user's score."""
    view = Actions(engine).ask(BUS, "", "")
    assert view.decision_id is not None
    sources = [o.source for o in engine.get_decision(view.decision_id).outcomes]
    assert sources == ["tool"]
    assert "**Tool outcome:** 0.00 for" in view.card
    assert view.card.endswith("**Score:** not scored yet - use the buttons below.")


def test_the_command_lines_summary_says_the_same(engine: Engine) -> None:
    decision = _with_tool(
        engine.decide("What is 1 + 1?"), {"ok": True, "output": "18", "fully_parsed": False}
    )
    cut = TraceStep(stage="answer", reason="done", outputs={"cut_off": True})
    text = summary(decision.model_copy(update={"trace": [*decision.trace, cut]}))
    assert f"input {BUS!r}; output '30 - 12 = 18'" in text
    assert "it did NOT read the whole question" in text
    assert "note:     it was cut off at the token limit, so its end is missing" in text
