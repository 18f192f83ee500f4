"""The Gradio page: four tabs wired to `Actions`; layout and event wiring only.

Ask locks itself while a decision runs: the query, Ask and every score button are disabled, and
the decision on screen is cleared, so a score can only ever go to the decision being shown.
"""

from collections.abc import Callable, Iterator
from typing import Any, Literal

import gradio as gr

from engine import ANSWER_KINDS, Engine
from experiments.environments import experiment_workloads
from ui.playground.actions import ARM_COLUMNS, Actions
from ui.playground.figures import POSTERIOR_NOTE, REGRET_NOTE, REWARD_NOTE
from ui.playground.views import TRACE_COLUMNS

__all__ = ["PLAYGROUND_CSS", "build_playground"]

MAX_SIMULATION_STEPS = 5000  # keeps a browser click under a few seconds on one core
TALL = 4000  # px: tables show every row instead of scrolling inside themselves
OTHERS_NOTE = "Detours the engine wrote, and retired paths, each with why."
NO_OTHERS_NOTE = (
    "None yet: a detour appears when the engine writes one (when the templates keep failing), "
    "a retired path when one is retired below."
)
ARMS_SCROLL_HINT = (
    f"Swipe the table sideways for all {len(ARM_COLUMNS)} columns: {', '.join(ARM_COLUMNS)} →"
)
# Gradio 6 takes a page's CSS where it is mounted (`gr.mount_gradio_app(css=...)`), not in
# `gr.Blocks`. Below Gradio's wide layout (1024 px) the Arms table, about 800 px of columns,
# scrolls sideways inside itself (measured: at 1023 px it does, at 1024 px it fits), and a phone
# shows no scrollbar until one swipes, so a hint says so there.
NARROW_PX = 1023
# Below it, Gradio's column widths (shares of the table's box) left the trace table's "seconds"
# and "LLM calls" 26 px wide at 390 px, one letter per line, and cut template ids mid-word. There,
# a table's box keeps a width its columns can be read at, and scrolls sideways inside the page
# as the Arms table does: Gradio sizes the columns from the box, so header and rows stay aligned.
NARROW_TABLE_PX = {"#trace-table": 760, "#templates-table": 960, "#detours-table": 640}
_NARROW_TABLES = "\n".join(
    f"  {table} {{ overflow-x: auto; }}\n  {table} .table-container {{ min-width: {px}px; }}"
    for table, px in NARROW_TABLE_PX.items()
)
PLAYGROUND_CSS = f"""
.narrow-only {{ display: none; }}
@media (max-width: {NARROW_PX}px) {{
  .narrow-only {{ display: block; }}
{_NARROW_TABLES}
}}
"""
EXAMPLE_TEMPLATE = '''id = "check_units"
name = "Check the units"
description = "Write down the units of every quantity, then make sure the answer's units fit."
tags = ["math"]
prompt = """
Question: {query}

List each quantity with its unit. Work out the answer, checking that the units match.
End with a line 'Answer: <answer>'.
"""
'''


def build_playground(engine: Engine) -> gr.Blocks:
    """The playground's Blocks, bound to one engine."""
    actions = Actions(engine)
    with gr.Blocks(title="ThinkPath playground", analytics_enabled=False) as page:
        gr.Markdown("# ThinkPath playground")
        chosen = gr.State(None)  # the path arm of the decision on screen, highlighted in plots
        with gr.Tab("Ask", elem_id="ask-tab"):
            ask = _ask_tab(actions, chosen)
        with gr.Tab("Arms", elem_id="arms-tab") as arms_tab:
            arms = _arms_tab(actions, chosen)
        with gr.Tab("Templates", elem_id="templates-tab") as templates_tab:
            refresh_templates = _templates_tab(actions)
        with gr.Tab("Simulate", elem_id="simulate-tab"):
            _simulate_tab(actions)
        arms_tab.select(**arms)
        templates_tab.select(**refresh_templates)
        for button in ask["score_buttons"]:
            button.then(**arms)  # the Arms tab is never stale after a score
        page.load(**arms)
        page.load(**refresh_templates)
    blocks: gr.Blocks = page
    return blocks


def _ask_tab(actions: Actions, chosen: Any) -> dict[str, Any]:
    decision_id = gr.State(None)
    query = gr.Textbox(label="Query", placeholder="What is 17 * 23?", elem_id="query")
    with gr.Row():
        expected = gr.Textbox(
            label=(
                "Expected answer (optional): checked exactly; without it you score the answer "
                "(or the referee, on kinds of question where it was measured)"
            ),
            elem_id="expected",
        )
        kind = gr.Dropdown(
            ["", *ANSWER_KINDS],
            value="",
            label="Answer kind (blank: inferred from the expected answer)",
            elem_id="kind",
        )
        task = gr.Textbox(
            label="Task (optional): a name such as ticket-triage keeps its learning apart; "
            "blank: the kind of query is found from the question",
            elem_id="task",
        )
    ask = gr.Button("Ask", variant="primary", elem_id="ask")
    progress = gr.Markdown(elem_id="progress", label="Progress")
    card = gr.Markdown(elem_id="card")
    with gr.Row():  # the card is Markdown, which has no copy button: these two copy exactly
        answer_copy = gr.Textbox(
            label="Answer (copy)", buttons=["copy"], interactive=False, elem_id="answer-copy"
        )
        id_copy = gr.Textbox(
            label="Decision id (copy)", buttons=["copy"], interactive=False, elem_id="id-copy"
        )
    cost = gr.Markdown(elem_id="cost")
    with gr.Row():
        good = gr.Button("Correct (1.0)", elem_id="score-good", interactive=False)
        bad = gr.Button("Wrong (0.0)", elem_id="score-bad", interactive=False)
        partial = gr.Slider(0, 1, value=0.5, step=0.05, label="Partial score")
        record = gr.Button("Record partial score", elem_id="score-partial", interactive=False)
    score_status = gr.Markdown(elem_id="score-status")
    kind_note = gr.State("")  # the card's note on an inferred answer kind, kept for re-drawing
    posteriors = _titled_plot("Candidate paths (the chosen one in orange)", "ask-posteriors")
    gr.Markdown(POSTERIOR_NOTE, elem_classes="figure-note")
    gr.Markdown("#### Trace: what each stage did, and why")
    trace = gr.Dataframe(
        headers=TRACE_COLUMNS,
        interactive=False,
        elem_id="trace-table",
        max_height=TALL,
        # One width per column, summing to the table's: the last ("LLM calls") was cut off at
        # 1280 px when only four were given.
        column_widths=["18%", "16%", "46%", "10%", "10%"],
        wrap=True,
    )
    with gr.Accordion("Raw trace (JSON)", open=False, elem_id="raw-trace"):
        raw = gr.JSON()

    controls = [query, ask, good, bad, record]
    # When each session pressed Ask, so the card's seconds are the user's whole wait. Not a
    # State input: "/ask" keeps the four inputs programs call it with.
    pressed: dict[str, float] = {}

    # A new question clears the last one's card, plot and trace: a stale plot under a new
    # question's progress read as its result.
    def lock(request: gr.Request) -> tuple[Any, ...]:
        if request.session_hash:
            pressed[request.session_hash] = actions.now()
        cleared: tuple[Any, ...] = (None, "", "", "", "Starting...", None, [], None, "", "")
        return (*(gr.update(interactive=False) for _ in controls), *cleared)

    def unlock(current: str | None) -> tuple[Any, ...]:
        scorable = gr.update(interactive=current is not None)
        return (gr.update(interactive=True), gr.update(interactive=True), *[scorable] * 3)

    parts = {
        "progress": progress,
        "decision_id": decision_id,
        "chosen": chosen,
        "card": card,
        "cost": cost,
        "posteriors": posteriors,
        "trace": trace,
        "raw": raw,
        "kind_note": kind_note,
        "answer_copy": answer_copy,
        "id_copy": id_copy,
    }
    run = _runner(actions, parts, pressed)
    outputs = [progress, decision_id, chosen, card, cost, posteriors, trace, raw, kind_note]
    outputs += [answer_copy, id_copy]
    # The Ask button's run is the page's API for programs (`gradio_client`: api_name "/ask");
    # pressing Enter runs the same, privately, and the lock and unlock steps are no API at all.
    for trigger, name in ((ask.click, "ask"), (query.submit, None)):
        cleared = [
            *controls,
            *(decision_id, score_status, card, cost, progress),
            *(posteriors, trace, raw, answer_copy, id_copy),
        ]
        visibility: Literal["public", "private"] = "public" if name else "private"
        trigger(lock, None, cleared, queue=False, api_visibility="private").then(
            run,
            [query, expected, kind, task],
            outputs,
            api_name=name,
            api_visibility=visibility,
        ).then(unlock, decision_id, controls, queue=False, api_visibility="private")

    def scorer(fixed: float | None) -> Any:
        def score(current: str | None, note: str, chosen_reward: float) -> tuple[Any, ...]:
            reward = chosen_reward if fixed is None else fixed
            view = actions.score(current, reward, note)
            if view.card is None:  # nothing recorded: the card and plot stay as they are
                return view.status, gr.update(), gr.update()
            return view.status, view.card, view.posteriors

        return score

    # Every score draws the card and the plot again from the stored decision, so the card shows
    # the score just given (in place of the check of an expected answer it corrects) at once.
    scoring: dict[str, Any] = {
        "inputs": [decision_id, kind_note, partial],
        "outputs": [score_status, card, posteriors],
    }
    scored = [
        good.click(scorer(1.0), **scoring),
        bad.click(scorer(0.0), **scoring),
        record.click(scorer(None), **scoring),
    ]
    return {"score_buttons": scored}


def _runner(
    actions: Actions, parts: dict[str, Any], pressed: dict[str, float]
) -> Callable[..., Iterator[dict[Any, Any]]]:
    """The Ask run over the components in `parts`: the progress as it comes, then the card with
    "Done" in one update, then the same with the card's plot (the slow part to draw and send).

    The last update repeats the card with its plot, unchanged: a program calling "/ask" gets the
    last update as its result, and one holding the plot alone gave it no card."""

    def run(
        text: str, expected_text: str, answer_kind: str, task_name: str, request: gr.Request
    ) -> Iterator[dict[Any, Any]]:
        # a program's call has no lock step before it: its wait starts here
        asked_at = pressed.pop(request.session_hash, None) if request.session_hash else None
        for lines, view in actions.ask_live(text, expected_text, answer_kind, task_name, asked_at):
            if view is None:
                yield {parts["progress"]: lines}
            else:
                values = {
                    "progress": lines,
                    "decision_id": view.decision_id,
                    "chosen": view.chosen_path,
                    "card": view.card,
                    "cost": view.cost,
                    "posteriors": view.posteriors,
                    "trace": view.trace,
                    "raw": view.raw_trace,
                    "kind_note": view.kind_note,
                    "answer_copy": view.answer,
                    "id_copy": view.decision_id or "",
                }
                yield {parts[name]: value for name, value in values.items()}

    return run


ALL_KINDS = ("all kinds (or the query's, if one is typed)", "")
ALL_MODELS = ("every model", "")


def _arms_tab(actions: Actions, chosen: Any) -> dict[str, Any]:
    with gr.Row():
        query = gr.Textbox(
            label="For a query (optional): cold or confident, and P(best), in its context",
            elem_id="arms-query",
        )
        kinds = gr.Dropdown(
            [ALL_KINDS],
            value="",
            label="Or for a kind of query (the engine learns per kind)",
            elem_id="arms-kind",
        )
        models = gr.Dropdown(
            [ALL_MODELS, *((model, model) for model in actions.engine.models)],
            value="",
            label="Counted on the decisions of one model",
            elem_id="arms-model",
        )
        refresh = gr.Button("Refresh", elem_id="refresh-arms")
    with gr.Row():
        new_name = gr.Textbox(
            label="Name the chosen kind (a slug such as ticket-triage): it keeps what it learned",
            elem_id="kind-name",
        )
        rename = gr.Button("Name it", elem_id="rename-kind")
    renamed = gr.Markdown(elem_id="kind-renamed")
    note = gr.Markdown(elem_id="arms-note")
    gr.Markdown(ARMS_SCROLL_HINT, elem_id="arms-scroll-hint", elem_classes="narrow-only")
    table = gr.Dataframe(
        headers=ARM_COLUMNS, interactive=False, elem_id="arms-table", max_height=TALL
    )
    posteriors = _titled_plot(
        "Posteriors (same order as the table; chosen arm in orange)", "arms-posteriors"
    )
    gr.Markdown(POSTERIOR_NOTE, elem_classes="figure-note")
    rewards = _titled_plot("Reward over time", "arms-rewards")
    gr.Markdown(REWARD_NOTE, elem_classes="figure-note")

    def show(
        text: str, current: str | None, kind: str | None, model: str | None
    ) -> tuple[Any, ...]:
        view = actions.arms(text, current, kind or "", model or "")
        offered = gr.update(choices=[ALL_KINDS, *actions.kind_choices()], value=kind or "")
        return view.note, view.table, view.posteriors, view.rewards, offered

    wiring: dict[str, Any] = {
        "fn": show,
        "inputs": [query, chosen, kinds, models],
        "outputs": [note, table, posteriors, rewards, kinds],
    }
    refresh.click(**wiring)
    query.submit(**wiring)
    kinds.input(**wiring)
    models.input(**wiring)
    rename.click(actions.rename_kind, [kinds, new_name], renamed).then(**wiring)
    return wiring


def _titled_plot(title: str, elem_id: str) -> gr.Plot:
    """A plot under a heading of its own.

    Gradio floats a plot's label over the figure's top left corner: on a phone, where the figure
    shrinks to the page's width, it hid the figure's title and first arm.
    """
    gr.Markdown(f"#### {title}", elem_id=f"{elem_id}-title")
    return gr.Plot(label=title, show_label=False, elem_id=elem_id)


def _templates_tab(actions: Actions) -> dict[str, Any]:
    gr.Markdown(
        "Templates are the reasoning paths the engine chooses among. Add one in TOML (start from "
        "the example); it becomes a new arm at once. Detour paths are written by the engine "
        "itself when the templates keep failing."
    )
    templates = gr.Dataframe(
        headers=["id", "name", "description", "added"],
        interactive=False,
        elem_id="templates-table",
        max_height=TALL,
        column_widths=["24%", "18%", "40%", "18%"],  # the longest built-in id whole
        wrap=True,
    )
    new_template = gr.Code(
        value=EXAMPLE_TEMPLATE, label="New template (TOML)", language=None, lines=10
    )
    add = gr.Button("Add template", elem_id="add-template")
    status = gr.Markdown(elem_id="template-status")
    gr.Markdown("#### Detour and retired paths")
    others_note = gr.Markdown(elem_id="detours-note")
    others = gr.Dataframe(
        headers=["id", "origin", "why it was created", "status"],
        interactive=False,
        elem_id="detours-table",
        max_height=TALL,
    )
    with gr.Row():
        retire_id = gr.Dropdown([], label="Retire a path", elem_id="retire-id")
        reason = gr.Textbox(label="Why (kept with the arm)", elem_id="retire-reason")
        retire = gr.Button("Retire...", variant="stop", elem_id="retire")
        confirm = gr.Button(
            "Confirm retire", variant="stop", elem_id="confirm-retire", visible=False
        )
        cancel = gr.Button("Cancel", elem_id="cancel-retire", visible=False)

    def listing() -> tuple[Any, ...]:
        others_rows = actions.other_paths()
        return (
            actions.templates(),
            others_rows,
            OTHERS_NOTE if others_rows else NO_OTHERS_NOTE,
            gr.update(choices=actions.live_path_ids(), value=None),
        )

    def ask_first(arm_id: str | None, why: str) -> tuple[Any, ...]:
        question, offer = actions.ask_to_retire(arm_id, why)
        return question, gr.update(visible=offer), gr.update(visible=offer)

    def confirmed(arm_id: str | None, why: str) -> tuple[Any, ...]:
        # The Why box empties once its reason is kept, so the next retire starts blank.
        said = actions.retire(arm_id, why)
        return said, gr.update(visible=False), gr.update(visible=False), ""

    def cancelled() -> tuple[Any, ...]:
        return "Not retired.", gr.update(visible=False), gr.update(visible=False)

    wiring: dict[str, Any] = {
        "fn": listing,
        "inputs": None,
        "outputs": [templates, others, others_note, retire_id],
    }
    add.click(actions.add_template, new_template, [status, templates]).then(**wiring)
    # Retiring cannot be undone, so it takes two presses: the first says what will happen.
    retire.click(ask_first, [retire_id, reason], [status, confirm, cancel])
    confirm.click(confirmed, [retire_id, reason], [status, confirm, cancel, reason]).then(**wiring)
    cancel.click(cancelled, None, [status, confirm, cancel])
    # A different pick cancels a pending confirmation: the question was about the old one.
    hide = (gr.update(visible=False), gr.update(visible=False))
    retire_id.change(lambda: hide, None, [confirm, cancel])
    return wiring


def _simulate_tab(actions: Actions) -> None:
    gr.Markdown(
        "Simulated traffic, no model: how fast each policy finds the best arm. Only policies "
        "that can run on the chosen workload are offered; on a workload with contexts, a "
        "non-contextual policy runs one copy per context."
    )
    workloads = sorted(experiment_workloads())
    start = "stationary" if "stationary" in workloads else workloads[0]
    offered = actions.policies_for(start, [])
    policies = gr.CheckboxGroup(
        offered,
        value=[name for name in ("thompson", "ucb1") if name in offered],
        label="Policies",
        elem_id="policies",
    )
    workload = gr.Dropdown(workloads, value=start, label="Workload", elem_id="workload")
    horizon = gr.Slider(100, MAX_SIMULATION_STEPS, value=2000, step=100, label="Steps")
    seeds = gr.Slider(1, 10, value=3, step=1, label="Seeds")
    simulate = gr.Button("Simulate", elem_id="simulate")
    regret = _titled_plot("Cumulative regret", "simulate-regret")
    gr.Markdown(REGRET_NOTE, elem_classes="figure-note")
    status = gr.Markdown(elem_id="simulate-status")

    def offer(key: str, current: list[str]) -> Any:
        fitting = actions.policies_for(key, current)
        return gr.update(choices=fitting, value=[name for name in current if name in fitting])

    workload.change(offer, [workload, policies], policies)
    simulate.click(actions.simulate, [policies, workload, horizon, seeds], [regret, status])
