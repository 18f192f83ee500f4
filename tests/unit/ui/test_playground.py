"""The playground's actions and views, without a browser (the browser test drives the page)."""

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from engine import checker_for
from engine.adapters.llm.scripted import ScriptedLLM, canned_script
from engine.adapters.store.memory import InMemoryStore
from engine.compose import build_engine
from engine.domain.models import Cost, Decision, Seed, SeedSource, TraceStep
from engine.domain.records import ArmRecord
from engine.errors import UnknownArmError
from engine.orchestration.facade import Engine
from engine.settings import Settings
from templates import parse_template
from tests.unit.ui.conftest import scripted_engine
from ui.playground import ARM_COLUMNS, Actions
from ui.playground.actions import expected_checker
from ui.playground.figures import fits_workload
from ui.playground.page import EXAMPLE_TEMPLATE
from ui.playground.views import answer_markdown, card_markdown, cost_markdown
from ui.progress import describe_stage

ROLE, ARM, STATE = (ARM_COLUMNS.index(name) for name in ("role", "arm", "state"))


def test_the_arms_tab_says_why_columns_are_empty(engine: Engine) -> None:
    view = Actions(engine).arms()
    assert "choose a kind or type a question above" in view.note
    assert "No scores yet" in view.note
    assert {row[STATE] for row in view.table} == {"-"}
    # every arm is listed, tools included, and the plot lists paths in the table's order
    assert {"path", "tool"} <= {row[ROLE] for row in view.table}
    table_arms = [
        (f"{row[ROLE]}: " if row[ROLE] != "path" else "") + row[ARM] for row in view.table
    ]
    plotted = [t.get_text() for t in view.posteriors.axes[0].get_yticklabels()]
    axis = view.posteriors.axes[0]
    assert axis.yaxis_inverted()  # first row on top
    assert plotted == table_arms  # tools too


def test_live_progress_names_each_stage_before_the_result(engine: Engine) -> None:
    updates = list(Actions(engine).ask_live("What is 12 + 30?", "", ""))
    *progress, (card_lines, card), (final_lines, view) = updates
    assert view is not None
    assert card is not None
    assert all(update[1] is None for update in progress)
    # named from the first moment, then the query's kind (a new one here), said with why
    assert progress[0][0].startswith("- *Finding the kind of query... (0 s; 0 s in all)*")
    stages = [lines for lines, _ in progress if not lines.startswith("- *Finding")]
    assert stages[0].startswith("- Kind of query: the kind `k1`, new: a new kind")
    assert "- Chose the reasoning path `" in final_lines
    assert re.search(r"- \*\*Done\*\* in \d+\.\d s\.$", final_lines)
    assert card_lines == final_lines  # "Done" comes with the card; only the plot follows
    assert card.posteriors is None
    assert view.posteriors is not None
    assert len(progress) >= 6  # one update per finished stage, at least


def test_a_blank_answer_kind_is_inferred_and_said(engine: Engine) -> None:
    view = Actions(engine).ask("What is 2 + 2?", "4", "")
    assert "by the exact check" in view.card
    assert "checked as **numeric** (inferred" in view.card
    checker, note = expected_checker("Canberra", "")
    assert checker is not None
    assert checker("Answer: Canberra") == 1.0
    assert "exact" in note
    assert expected_checker("", "") == (None, "")


@pytest.mark.parametrize(
    ("expected", "kind"),
    [
        ("4", "numeric"),
        ("-3.5", "numeric"),
        ("B", "choice"),
        ("(c)", "choice"),  # the playground and the engine once disagreed on these two
        ("b", "exact"),  # a bare lower-case letter may be the first letter of a word
        ("2024-03-11", "date"),
        ("Canberra", "exact"),
        ("twelve", "numeric"),
        ("The Eiffel Tower", "exact"),
    ],
)
def test_the_playground_infers_the_answer_kind_with_the_engines_one_rule(
    expected: str, kind: str
) -> None:
    checker, note = expected_checker(expected, "")
    assert checker is not None
    assert f"checked as **{kind}** (inferred" in note
    assert checker_for(expected).kind == kind  # `engine.checker_for` infers it, for every edge


def test_the_card_labels_path_tool_seed_and_the_referee(tmp_path: Path) -> None:
    opted_in = scripted_engine(tmp_path, referee_weight=0.5)  # else unmeasured: not asked
    card = Actions(opted_in).ask("What is the capital of Australia?", "", "").card
    for label in ("#### Answer", "**Reasoning path:**", "**Tool:**", "**Thinking seed:**"):
        assert label in card
    assert "by the referee (the model judging the answer, counted at weight 0.5)" in card
    assert "no usable reason" in card  # the scripted referee's reason is "x"


def test_by_default_an_unchecked_answer_waits_for_the_users_score(engine: Engine) -> None:
    card = Actions(engine).ask("What is the capital of Australia?", "", "").card
    assert "by the referee" not in card  # never measured on such questions: not asked
    assert "**Score:** not scored yet - use the buttons below." in card


def test_a_looping_answer_is_folded() -> None:
    looping = "Let me think.\n" + "I am not sure.\n" * 40
    shown = answer_markdown(looping)
    assert "the model repeated 'I am not sure' 40 times; folded" in shown
    assert shown.index("<details>") < 200
    assert answer_markdown("Answer: 4") == "4"  # the card's heading says "Answer" once
    assert "it has 2000 characters; folded" in answer_markdown("x" * 2000)


def test_a_local_models_cost_is_free_not_zero_dollars(engine: Engine) -> None:
    decision = engine.decide("Who wrote Hamlet?")  # no tool reads it: the model answers
    assert cost_markdown(decision).endswith("free (local)")
    direct = engine.decide("What is 1 + 1?")  # the calculator's own reading answers
    assert direct.cost.calls == 0
    assert cost_markdown(direct).endswith("free (no model call)")
    priced = decision.model_copy(update={"cost": Cost(calls=1, cost_usd=0.0123)})
    assert cost_markdown(priced).endswith("$0.0123")
    unknown = decision.model_copy(update={"cost": Cost(calls=1, cost_usd=None)})
    assert cost_markdown(unknown).endswith("price unknown")


def test_the_trace_table_has_a_row_per_stage(engine: Engine) -> None:
    view = Actions(engine).ask("What is 12 + 30?", "", "")
    stages = [row[0] for row in view.trace]
    assert stages[0] == "Kind of query"  # then the model every later call runs on
    assert stages[1] == "Chose the model"  # then the options it offers (none here)
    assert stages[2] == "Read the options"  # then the seed, or the seed gate's choice to skip it
    assert stages[3] in ("Searched for background", "Thinking seed")
    assert "Chose the reasoning path" in stages
    assert len(view.trace) == len(view.raw_trace)
    selection = next(row for row in view.trace if row[0] == "Chose the reasoning path")
    assert "of the time in this state" in selection[2]
    assert all("`" not in str(cell) for row in view.trace for cell in row)  # no markup leaks


def test_describe_stage_covers_faults_and_every_stage_name() -> None:
    fault = TraceStep(stage="answer", reason="fault", error="TimeoutError: slow")
    assert describe_stage(fault) == (
        "Wrote the answer: failed; the decision went on without it (TimeoutError: slow)"
    )
    weak = TraceStep(stage="seed_check", reason="weak_seed", error="retrieval returned no passages")
    assert "answering without background" in describe_stage(weak)
    for stage in ("seed", "tool", "checker", "referee", "detour", "tool_selection", "model"):
        assert describe_stage(TraceStep(stage=stage, reason="done"))


def test_templates_start_from_an_example_and_errors_come_one_per_line(engine: Engine) -> None:
    actions = Actions(engine)
    status, rows = actions.add_template(EXAMPLE_TEMPLATE)
    assert "first row" in status
    assert rows[0][0] == "check_units"
    status, _ = actions.add_template('id = "Bad Id"\nextra = 1')
    assert status.startswith("**Not added:**")
    assert status.count("\n- ") >= 3  # bad id, unknown field, missing fields: a line each


def test_retire_a_template_and_list_it_with_why(engine: Engine) -> None:
    actions = Actions(engine)
    assert "Retired `analogy`" in actions.retire("analogy", "never helps")
    assert "analogy" not in actions.live_path_ids()
    assert "analogy" not in [row[0] for row in actions.templates()]
    assert ["analogy", "template", "a template", "retired: never helps"] in actions.other_paths()
    assert actions.retire("analogy", "again").startswith("Retired")  # again: nothing changes
    assert ["analogy", "template", "a template", "retired: never helps"] in actions.other_paths()
    assert actions.retire("direct_answer", " ").startswith("**Not retired:**")
    assert actions.retire(None, "why") == "Pick a path to retire."


def test_a_retired_template_stays_retired_after_a_refresh(engine: Engine) -> None:
    toml = 'id = "t1"\nname = "T"\ndescription = "d"\nprompt = "{query}"'
    engine.add_template(parse_template(toml, "t"))
    engine.retire_template("t1", "test")
    engine.refresh()  # re-reads the catalogue, where the template's record is now retired
    assert "t1" not in Actions(engine).live_path_ids()
    assert next(s for s in engine.arms() if s.arm_id == "t1").retired_reason == "test"
    with pytest.raises(UnknownArmError, match="no path"):
        engine.retire_template("nope", "x")


def test_errors_come_back_as_text(engine: Engine) -> None:
    actions = Actions(engine)
    assert actions.ask("", "", "").card.startswith("**Error:**")
    assert actions.ask("What is 1 + 1?", "soon", "date").card.startswith("**Error:**")
    assert actions.score(None, 1.0).status.startswith("Ask something first")
    assert actions.score("nope", 1.0).status.startswith("**Error:**")
    figure, message = actions.simulate([], "stationary", 100, 1)
    assert figure is None
    assert message == "Pick at least one policy."


def test_simulate_draws_one_curve_and_one_labelled_band_per_policy(engine: Engine) -> None:
    figure, message = Actions(engine).simulate(["thompson", "ucb1"], "stationary", 200, 2)
    assert message == ""
    assert figure is not None
    axis = figure.axes[0]
    assert len(axis.get_lines()) == 2
    labels = axis.get_legend_handles_labels()[1]
    assert "thompson: 95% interval over 2 seeds" in labels
    colours = {line.get_color() for line in axis.get_lines()}
    assert len(colours) == 2


def test_simulate_offers_policies_that_fit_and_runs_mixed_ones(engine: Engine) -> None:
    actions = Actions(engine)
    assert "linucb" not in actions.policies_for("stationary", [])
    assert fits_workload("thompson", "contextual")
    contextual = actions.policies_for("contextual", [])
    assert {"linucb", "thompson"} <= set(contextual)
    figure, message = actions.simulate(["thompson", "linucb"], "contextual", 200, 1)
    assert message == ""
    assert figure is not None
    labels = figure.axes[0].get_legend_handles_labels()[1]
    assert "thompson (one per context)" in labels
    _, refused = actions.simulate(["linucb"], "stationary", 100, 1)
    assert "need a context" in refused


def test_answer_tokens_show_while_the_answer_is_written(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    decide = engine.decide

    def streaming(query: str, **kwargs: Any) -> Decision:
        kwargs["listener"].on_token("Answer: ")
        kwargs["listener"].on_token("5")
        return decide(query, **kwargs)

    monkeypatch.setattr(engine, "decide", streaming)
    updates = [lines for lines, view in Actions(engine).ask_live("What is 2 + 3?", "", "")]
    assert updates[0].startswith("- *Finding the kind of query...")
    assert "- *Writing the answer:* Answer\\: 5" in updates[2]


def test_a_detour_is_listed_with_why_it_was_created(tmp_path: Path) -> None:
    store = InMemoryStore()
    definition = {"name": "D", "description": "d", "prompt": "{query}"}
    store.save_arm(
        ArmRecord(
            "default",
            "path",
            "detour_1",
            "detour",
            {**definition, "created_because": "every path failed three times"},
            datetime.now(UTC),
        )
    )
    settings = Settings(home=tmp_path, store_url="memory", policy_seed=3)
    engine = build_engine(settings, llm=ScriptedLLM(canned_script), store=store)
    rows = Actions(engine).other_paths()
    assert ["detour_1", "detour", "every path failed three times", "live"] in rows
    assert "Retired `detour_1`" in Actions(engine).retire("detour_1", "not needed")
    assert Actions(engine).other_paths()[0][3] == "retired: not needed"
    # retiring keeps why it was created
    assert Actions(engine).other_paths()[0][2] == "every path failed three times"


def test_the_card_says_which_step_left_the_answer_without_a_seed(engine: Engine) -> None:
    decision = engine.decide("What is 1 + 1?")
    source = SeedSource(source="notes/a.md", title="A")
    rejected_brief = decision.model_copy(
        update={
            "seed": Seed(sources=[source], check_reasons=["the brief shares no terms"]),
            "trace": [
                TraceStep(stage="seed", reason="weak_seed", error="the brief shares no terms")
            ],
        }
    )
    assert "the model's brief of them was not usable (the brief shares no terms)" in card_markdown(
        rejected_brief
    )
    unmatched = decision.model_copy(
        update={"seed": Seed(sources=[source], check_reasons=["covers 10% of terms"]), "trace": []}
    )
    card = card_markdown(unmatched)
    assert "the 1 passage found did not match the question well" in card
    assert "(check: covers 10% of terms)" in card
    nothing = decision.model_copy(update={"seed": Seed(), "trace": []})
    assert "the search found nothing" in card_markdown(nothing)


def _dependency(page: Any, button_id: str, nth: int = 0) -> dict[str, Any]:
    """The `nth` event wired to the element with `elem_id` `button_id`, with its output types."""
    ids = {c["id"]: c for c in page.config["components"]}
    target = next(i for i, c in ids.items() if c.get("props", {}).get("elem_id") == button_id)
    wired = [
        d
        for d in page.config["dependencies"]
        if (target, "click") in [tuple(t) for t in d["targets"]]
    ]
    dependency = dict(wired[nth])
    dependency["output_elems"] = [
        ids[o].get("props", {}).get("elem_id") for o in wired[nth]["outputs"]
    ]
    dependency["output_types"] = [ids[o]["type"] for o in wired[nth]["outputs"]]
    return dependency


def test_asking_clears_the_last_plot_and_offers_copy_buttons(engine: Engine) -> None:
    from ui.playground.page import build_playground

    page = build_playground(engine)
    lock = _dependency(page, "ask")
    assert "plot" in lock["output_types"]  # the previous question's plot goes at once
    assert {"card", "answer-copy", "id-copy", "trace-table"} <= set(lock["output_elems"])
    copies = [
        c["props"]
        for c in page.config["components"]
        if c.get("props", {}).get("elem_id") in ("answer-copy", "id-copy")
    ]
    assert [props["buttons"] for props in copies] == [["copy"], ["copy"]]
    view = Actions(engine).ask("What is 2 + 3?", "", "")
    assert view.answer == "5"  # as the card shows it: "Answer: 5" under the heading "Answer"
    assert "\n5\n" in view.card


def test_retire_can_be_cancelled_and_the_why_box_clears(engine: Engine) -> None:
    from ui.playground.page import build_playground

    page = build_playground(engine)
    assert _dependency(page, "cancel-retire")["output_elems"][1:] == [
        "confirm-retire",
        "cancel-retire",
    ]
    assert "retire-reason" in _dependency(page, "confirm-retire")["output_elems"]


def test_the_card_shows_the_options_and_the_one_chosen(engine: Engine) -> None:
    view = Actions(engine).ask("Which planet is the largest? (A) Mars (B) Jupiter", "", "")
    card = view.card.replace("\\", "")  # as rendered: model and question text is escaped
    assert "**Options:** 2 options read from the question" in card
    assert '(A) "Mars", (B) "Jupiter"' in card
    assert '; chose (A) "Mars" in one call held to the options' in card
    stages = [row[0] for row in view.trace]
    assert "Read the options" in stages
    plain = Actions(engine).ask("What is the capital of Australia?", "", "")
    assert "**Options:**" not in plain.card


def test_the_card_says_which_model_answered_why_and_how_likely(engine: Engine) -> None:
    view = Actions(engine).ask("What is 12 + 30?", "", "")
    model = next(line for line in view.card.splitlines() if line.startswith("**Model:**"))
    assert "`scripted`" in model
    assert "the only model in the catalogue" in model
    assert "it makes this pick every time in this state" in model
