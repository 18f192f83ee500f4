"""The Gradio playground: ask, score, watch the arms learn, edit templates, simulate policies.

Every handler is a thin call into the engine facade (or the experiments' simulators) plus a view
function that turns the result into Markdown, a table or a figure. The view functions are plain
Python so that tests can call them without a browser.
"""

from collections.abc import Callable, Sequence
from typing import Any

import gradio as gr
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator
from scipy.stats import beta

from engine.core.checkers import ANSWER_KINDS, check_answer
from engine.core.facade import Engine
from engine.core.models import ArmStats, Decision
from engine.core.records import LearnedOutcome
from engine.errors import ThinkPathError
from experiments.benchmarks.harness import arm_names, play
from experiments.environments import experiment_workloads
from learning import available_policies, make_policy
from templates import parse_template

MAX_SIMULATION_STEPS = 5000  # keeps a browser click under a few seconds on one core


# -- views -------------------------------------------------------------------------------------


def seed_markdown(decision: Decision) -> str:
    seed = decision.seed
    if seed.brief is None:
        why = "; ".join(seed.check_reasons) or "no usable sources"
        return f"**No thinking seed** ({why})."
    lines = [
        seed.brief,
        "",
        f"*Relevance {seed.relevance:.2f}*" + (" - rebuilt" if seed.rebuilt else ""),
    ]
    lines += [f"- `{source.source}` {source.title}" for source in seed.sources]
    return "\n".join(lines)


def choice_markdown(decision: Decision) -> str:
    lines = []
    for choice in (decision.path, decision.tool):
        if choice is not None:
            lines.append(
                f"- **{choice.role}**: `{choice.arm_id}` (propensity {choice.propensity:.2f}, "
                f"{choice.reason.replace('_', ' ')})"
            )
    if decision.tool_run is not None:
        run = decision.tool_run
        lines.append(f"- tool run: {'ok' if run.ok else 'failed: ' + (run.error or '')}")
    if decision.degraded:
        lines.append(f"- **degraded**: {'; '.join(decision.degraded_reasons)}")
    return "\n".join(lines) or "No path was chosen."


def cost_markdown(decision: Decision) -> str:
    cost = decision.cost
    money = "unknown" if cost.cost_usd is None else f"${cost.cost_usd:.6f}"
    return (
        f"{cost.calls} LLM calls, {cost.prompt_tokens} prompt + {cost.completion_tokens} "
        f"completion tokens, {cost.seconds:.2f} s, {money}"
    )


def posterior_figure(stats: Sequence[ArmStats], title: str) -> Figure:
    """Mean reward with a 90% Beta credible interval per arm, and P(best) beside it."""
    figure = Figure(figsize=(8, max(2.5, 0.35 * len(stats) + 1)))
    means_axis, best_axis = figure.subplots(1, 2, sharey=True, width_ratios=[3, 1])
    labels = [stat.arm_id for stat in stats]
    positions = np.arange(len(stats))
    successes = np.array([(stat.mean_reward or 0.0) * stat.pulls for stat in stats])
    failures = np.array([stat.pulls for stat in stats]) - successes
    low, high = beta.ppf([[0.05], [0.95]], 1 + successes, 1 + failures)
    means = (1 + successes) / (2 + successes + failures)
    means_axis.errorbar(means, positions, xerr=[means - low, high - means], fmt="o", capsize=3)
    means_axis.set(
        yticks=positions, yticklabels=labels, xlim=(0, 1), xlabel="posterior mean reward"
    )
    means_axis.set_title(title)
    best = [stat.prob_best or 0.0 for stat in stats]
    best_axis.barh(positions, best, color="tab:green")
    best_axis.set(xlim=(0, 1), xlabel="P(best)")
    figure.tight_layout()
    return figure


def arms_table(stats: Sequence[ArmStats]) -> list[list[Any]]:
    return [
        [
            stat.role,
            stat.arm_id,
            stat.origin,
            round(stat.pulls, 2),
            None if stat.mean_reward is None else round(stat.mean_reward, 3),
            stat.outcomes,
            "cold" if stat.cold else ("confident" if stat.cold is False else ""),
            None if stat.prob_best is None else round(stat.prob_best, 3),
            stat.retired_reason or "",
        ]
        for stat in stats
    ]


def reward_figure(outcomes: Sequence[LearnedOutcome], most: int = 8) -> Figure:
    """Each path arm's running mean reward over the outcome log (the `most` most used arms)."""
    figure = Figure(figsize=(8, 3.5))
    axis = figure.subplots()
    by_arm: dict[str, list[tuple[int, float]]] = {}
    for outcome in outcomes:
        arm = outcome.choices.get("path")
        if arm is not None and outcome.source != "tool":  # a tool's own result is not the path's
            by_arm.setdefault(arm, []).append((outcome.seq, outcome.reward))
    for arm, points in sorted(by_arm.items(), key=lambda item: -len(item[1]))[:most]:
        seqs, rewards = zip(*points, strict=True)
        running = np.cumsum(rewards) / np.arange(1, len(rewards) + 1)
        axis.plot(seqs, running, marker="." if len(points) < 30 else None, label=arm)
    axis.set(xlabel="outcome #", ylabel="running mean reward", ylim=(-0.05, 1.05))
    axis.xaxis.set_major_locator(MaxNLocator(integer=True))
    axis.set_title("path arms: reward over time")
    if by_arm:
        axis.legend(fontsize="small", loc="lower right")
    figure.tight_layout()
    return figure


ARM_COLUMNS = ["role", "arm", "origin", "pulls", "mean", "outcomes", "state", "P(best)", "retired"]


def regret_figure(policies: Sequence[str], workload_key: str, horizon: int, seeds: int) -> Figure:
    """Mean cumulative regret of each policy over `seeds` runs of one simulated workload."""
    workload = experiment_workloads()[workload_key]
    figure = Figure(figsize=(8, 4))
    axis = figure.subplots()
    for name in policies:
        curves = []
        for seed in range(seeds):
            environment = workload.build(horizon, seed)
            params = {"context_dim": workload.context_dim} if workload.context_dim else {}
            policy = make_policy(name, arm_names(workload.n_arms), seed=seed, **params)
            chosen = play(policy, environment)
            steps = np.arange(environment.horizon)
            gap = environment.step_means.max(axis=1) - environment.step_means[steps, chosen]
            curves.append(np.cumsum(gap))
        axis.plot(np.mean(curves, axis=0), label=name)
    axis.set(xlabel="step", ylabel="cumulative regret", title=workload.title)
    axis.legend()
    figure.tight_layout()
    return figure


# -- actions: what each control does, testable without a browser --------------------------------


class Actions:
    """The playground's handlers, bound to one engine; errors come back as text, never raised."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def ask(self, text: str, expected_text: str, answer_kind: str) -> tuple[Any, ...]:
        try:
            decision = self.engine.decide(text, checker=_checker(expected_text, answer_kind))
        except (ThinkPathError, ValueError) as error:
            return (None, "", "", "", f"**Error:** {error}", "", None, {})
        figure = posterior_figure(
            [s for s in self.engine.arms(text) if s.role == "path" and not s.retired],
            "path arms for this query",
        )
        scores = "".join(f"; {o.source} scored {o.reward:.2f}" for o in decision.outcomes)
        return (
            decision.id,
            decision.answer or "*No answer (degraded)*",
            choice_markdown(decision),
            cost_markdown(decision),
            f"Decision `{decision.id}`{scores}",
            seed_markdown(decision),
            figure,
            decision.model_dump(mode="json")["trace"],
        )

    def score(self, decision_id: str | None, reward: float) -> str:
        if decision_id is None:
            return "Ask something first."
        try:
            result = self.engine.record_outcome(decision_id, "user", float(reward))
        except ThinkPathError as error:
            return f"**Error:** {error}"
        if not result.applied:
            return f"Your score for `{decision_id}` was recorded before; it counts once."
        return (
            f"Recorded your score {result.reward:.2f} for `{decision_id}` (outcome #{result.seq})."
        )

    def arms(self, query: str = "") -> tuple[list[list[Any]], Figure, Figure]:
        """The arm table (cold or confident and P(best) for `query`, when one is given)."""
        try:
            stats = self.engine.arms(query.strip() or None)
        except ThinkPathError:
            stats = self.engine.arms()
        live_paths = [s for s in stats if s.role == "path" and not s.retired]
        title = "path arms" + (f" for {query.strip()[:40]!r}" if query.strip() else "")
        return (
            arms_table(stats),
            posterior_figure(live_paths, title),
            reward_figure(self.engine.outcome_log()),
        )

    def templates(self) -> list[list[str]]:
        return [[t.arm_id, t.name, t.description] for t in self.engine.templates()]

    def add_template(self, text: str) -> tuple[str, list[list[str]]]:
        try:
            added = self.engine.add_template(parse_template(text, "playground"))
        except ThinkPathError as error:
            return f"**Not added:** {error}", self.templates()
        return f"Added `{added.arm_id}`.", self.templates()

    def simulate(
        self, policies: list[str], workload: str, steps: float, runs: float
    ) -> tuple[Figure | None, str]:
        if not policies:
            return None, "Pick at least one policy."
        try:
            return regret_figure(policies, workload, int(steps), int(runs)), ""
        except ThinkPathError as error:
            return None, f"**Error:** {error}"


def _checker(expected_text: str, answer_kind: str) -> Callable[[str], float] | None:
    truth = expected_text.strip()
    if not (truth and answer_kind):
        return None
    check_answer("0" if answer_kind != "date" else truth, truth, answer_kind)  # fail before asking
    return lambda answer_text: check_answer(answer_text, truth, answer_kind)


# -- the page ----------------------------------------------------------------------------------


def build_playground(engine: Engine) -> gr.Blocks:
    """The playground's Blocks, bound to one engine."""
    actions = Actions(engine)
    with gr.Blocks(title="ThinkPath playground", analytics_enabled=False) as page:
        gr.Markdown("# ThinkPath playground")
        with gr.Tab("Ask"):
            _ask_tab(actions)
        with gr.Tab("Arms", elem_id="arms-tab"):
            with gr.Row():
                arms_query = gr.Textbox(
                    label="For a query (optional): cold or confident, and P(best), in its context",
                    elem_id="arms-query",
                )
                refresh = gr.Button("Refresh", elem_id="refresh-arms")
            table = gr.Dataframe(headers=ARM_COLUMNS, interactive=False, elem_id="arms-table")
            arms_plot = gr.Plot(label="Posteriors")
            rewards_plot = gr.Plot(label="Reward over time")
            refresh.click(actions.arms, arms_query, [table, arms_plot, rewards_plot])
            page.load(actions.arms, None, [table, arms_plot, rewards_plot])
        with gr.Tab("Templates"):
            templates = gr.Dataframe(headers=["id", "name", "description"], interactive=False)
            new_template = gr.Code(label="New template (TOML)", language=None, lines=8)
            add = gr.Button("Add template")
            template_status = gr.Markdown()
            add.click(actions.add_template, new_template, [template_status, templates])
            page.load(actions.templates, None, templates)
        with gr.Tab("Simulate"):
            _simulate_tab(actions)
    blocks: gr.Blocks = page
    return blocks


def _ask_tab(actions: Actions) -> None:
    decision_id = gr.State(None)
    query = gr.Textbox(label="Query", placeholder="What is 17 * 23?", elem_id="query")
    with gr.Row():
        expected = gr.Textbox(label="Expected answer (optional, for an exact check)")
        kind = gr.Dropdown(["", *ANSWER_KINDS], value="", label="Answer kind")
    ask = gr.Button("Ask", variant="primary", elem_id="ask")
    answer = gr.Markdown(elem_id="answer")
    choice = gr.Markdown(elem_id="choice")
    cost = gr.Markdown(elem_id="cost")
    with gr.Row():
        good = gr.Button("Correct (1.0)", elem_id="score-good")
        bad = gr.Button("Wrong (0.0)", elem_id="score-bad")
    with gr.Row():
        partial = gr.Slider(0, 1, value=0.5, step=0.05, label="Partial score")
        record = gr.Button("Record partial score", elem_id="score-partial")
    status = gr.Markdown(elem_id="status")
    seed = gr.Markdown(label="Thinking seed")
    posteriors = gr.Plot(label="Candidate paths")
    trace = gr.JSON(label="Trace")
    outputs = [decision_id, answer, choice, cost, status, seed, posteriors, trace]
    ask.click(actions.ask, [query, expected, kind], outputs)
    query.submit(actions.ask, [query, expected, kind], outputs)
    good.click(lambda current: actions.score(current, 1.0), decision_id, status)
    bad.click(lambda current: actions.score(current, 0.0), decision_id, status)
    record.click(actions.score, [decision_id, partial], status)


def _simulate_tab(actions: Actions) -> None:
    policies = gr.CheckboxGroup(available_policies(), value=["thompson", "ucb1"], label="Policies")
    workload = gr.Dropdown(sorted(experiment_workloads()), value="stationary", label="Workload")
    horizon = gr.Slider(100, MAX_SIMULATION_STEPS, value=2000, step=100, label="Steps")
    seeds = gr.Slider(1, 10, value=3, step=1, label="Seeds")
    simulate = gr.Button("Simulate")
    regret = gr.Plot(label="Cumulative regret")
    status = gr.Markdown()
    simulate.click(actions.simulate, [policies, workload, horizon, seeds], [regret, status])
