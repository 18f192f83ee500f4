"""The playground's figures: arm posteriors, reward over time, simulated regret.

Arms are drawn top to bottom in the order the Arms table lists them, the arm just chosen is
highlighted, and every policy keeps its colour and line style from `experiments.plots.style_for`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from engine import (
    PROB_BEST_MEANING,
    ArmStats,
    Evidence,
    LearnedOutcome,
    in_force,
    split_source_key,
    teaches,
)
from engine.errors import ConfigError
from experiments.environments import experiment_workloads
from learning import KeyedPolicy, make_policy
from learning.registry import AUTO, reads_context

# matplotlib and scipy.stats (about 3 s of imports on two cores) load when a figure is first
# drawn, not when the playground is built: the service is ready sooner, and
# `ui.serve` loads them on a thread once it is (`load_figure_libraries`).
if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "POSTERIOR_NOTE",
    "REGRET_NOTE",
    "REWARD_NOTE",
    "beta_parameters",
    "fits_workload",
    "load_figure_libraries",
    "posterior_figure",
    "regret_figure",
    "reward_figure",
]

HIGHLIGHT = "tab:orange"


POSTERIOR_NOTE = (
    "Each dot is an arm's posterior mean reward over all questions (its weighted scores with a "
    "uniform prior), the bar its 90% credible interval. The bars beside them are P(best) for the "
    "kind of query shown (none without one). " + PROB_BEST_MEANING
)
NO_KIND = "no kind chosen:\nP(best) is per kind"
REWARD_NOTE = (
    "The running weighted mean of each arm's scores, outcome by outcome (a referee's score "
    "counts at its weight, as in the table): a line that settles high is an arm that keeps "
    "being right."
)
REGRET_NOTE = (
    "Cumulative regret: how much reward each policy lost against always playing the best arm; "
    "a curve that flattens has found it. Shaded: the 95% interval of the mean over the seeds."
)


def load_figure_libraries() -> None:
    """Import what drawing needs (matplotlib, scipy.stats, the plot styles), once."""
    import matplotlib.figure  # noqa: F401, PLC0415
    import scipy.stats  # noqa: F401, PLC0415

    import experiments.benchmarks.harness  # noqa: PLC0415
    import experiments.plots  # noqa: F401, PLC0415


def beta_parameters(stats: Sequence[ArmStats]) -> tuple[np.ndarray, np.ndarray]:
    """The Beta posterior of each arm from its weighted statistics, under a uniform prior:
    alpha = 1 + weighted successes, beta = 1 + weighted failures (as the table counts them)."""
    pulls = np.array([stat.pulls for stat in stats], dtype=float)
    successes = np.array([(stat.mean_reward or 0.0) for stat in stats]) * pulls
    return 1.0 + successes, 1.0 + pulls - successes


def posterior_figure(stats: Sequence[ArmStats], title: str, chosen: str | None = None) -> Figure:
    """Posterior mean reward with a 90% Beta credible interval per arm (`beta_parameters`, all
    questions together), and beside it the engine's P(best) for the kind the stats were read for
    (`ArmStats.prob_best`, the number the table, the API and MLflow show).

    Arms run top to bottom in the order given (the table's order); an arm of another role than
    the first is labelled with its role; `chosen` is drawn in orange.
    """
    from matplotlib.figure import Figure  # noqa: PLC0415 - see the module top
    from scipy.stats import beta  # noqa: PLC0415

    figure = Figure(figsize=(8, max(2.5, 0.35 * len(stats) + 1.2)))
    means_axis, best_axis = figure.subplots(1, 2, sharey=True, width_ratios=[3, 1])
    first_role = stats[0].role if stats else "path"
    labels = [
        ("" if stat.role == first_role else f"{stat.role}: ")
        + stat.arm_id
        + ("  (chosen)" if stat.arm_id == chosen else "")
        for stat in stats
    ]
    positions = np.arange(len(stats))
    alpha, beta_ = beta_parameters(stats)
    low, high = beta.ppf([[0.05], [0.95]], alpha, beta_)
    means = alpha / (alpha + beta_)
    colours = [HIGHLIGHT if stat.arm_id == chosen else "tab:blue" for stat in stats]
    for position, mean, below, above, colour in zip(
        positions, means, means - low, high - means, colours, strict=True
    ):
        means_axis.errorbar(
            [mean], [position], xerr=[[below], [above]], fmt="o", capsize=3, color=colour
        )
    means_axis.set(
        yticks=positions,
        yticklabels=labels,
        xlim=(0, 1),
        xlabel="posterior mean reward (bar: 90% credible interval)",
    )
    for tick, colour in zip(means_axis.get_yticklabels(), colours, strict=True):
        tick.set_color(colour)
    means_axis.invert_yaxis()  # first arm of the table at the top
    means_axis.set_title(title)
    chances = [stat.prob_best for stat in stats]
    best_axis.barh(positions, [chance or 0.0 for chance in chances], color=colours)
    best_axis.set(xlim=(0, 1), xlabel="P(best) in its role, for the kind")
    if all(chance is None for chance in chances):
        best_axis.text(0.5, 0.5, NO_KIND, ha="center", va="center", transform=best_axis.transAxes)
    figure.tight_layout()
    return figure


def reward_figure(outcomes: Sequence[LearnedOutcome], most: int = 8) -> Figure:
    """Each arm's running weighted mean reward over the outcome log, paths above and tools
    below (the `most` most used arms of each)."""
    from matplotlib.figure import Figure  # noqa: PLC0415 - see the module top

    figure = Figure(figsize=(9, 6.4))
    for axis, role in zip(figure.subplots(2, 1, sharex=True), ("path", "tool"), strict=True):
        _reward_lines(axis, outcomes, role, most)
    figure.tight_layout()
    return figure


def _reward_lines(axis: Axes, outcomes: Sequence[LearnedOutcome], role: str, most: int) -> None:
    from matplotlib.ticker import MaxNLocator  # noqa: PLC0415 - see the module top

    from experiments.plots import styles_for  # noqa: PLC0415

    by_arm = _running_means(outcomes, role)
    shown = sorted(by_arm.items(), key=lambda item: -len(item[1]))[:most]
    styles = styles_for([arm for arm, _ in shown])
    for arm, points in shown:
        seqs, running = (np.array(column) for column in zip(*points, strict=True))
        marker = "." if len(points) < 30 else None
        axis.plot(seqs, running, marker=marker, label=arm, **styles[arm])
    axis.set(ylabel="running mean reward", ylim=(-0.05, 1.05))
    axis.set_xlabel("decisions with the arm (each counted once, as in the table)")
    axis.xaxis.set_major_locator(MaxNLocator(integer=True))
    axis.set_title(f"{role} arms: reward over time (weighted)")
    if by_arm:  # beside the axes, not on them: a legend inside covers the lines
        axis.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    else:
        axis.text(0.5, 0.5, "no outcomes yet: ask and score", ha="center", transform=axis.transAxes)


def _running_means(
    outcomes: Sequence[LearnedOutcome], role: str
) -> dict[str, list[tuple[int, float]]]:
    """Per arm, its weighted mean reward after each of its decisions (x: the arm's decisions so
    far), counting for each decision only the outcome in force (`engine.domain.evidence`): the
    table's rule, so the line has as many points as the table counts and ends at its mean."""
    standing: dict[str, dict[str, Evidence]] = {}  # decision -> source -> its latest score
    counted: dict[str, tuple[float, float]] = {}  # decision -> its reward and weight in force
    # arm -> [weighted reward sum, weight sum], kept as outcomes replace each other, so each
    # point costs the same however many decisions the arm has (the figure is redrawn per score)
    sums: dict[str, list[float]] = {}
    lines: dict[str, list[tuple[int, float]]] = {}
    for outcome in sorted(outcomes, key=lambda o: o.seq):
        arm = outcome.choices.get(role)
        source, _revision = split_source_key(outcome.source)
        if arm is None or not teaches(source, role):
            continue
        scores = standing.setdefault(outcome.decision_id, {})
        first = scores[source].first_seq if source in scores else outcome.seq
        scores[source] = Evidence(source, outcome.reward, outcome.weight, first)
        force = in_force(scores, role)
        if force is None:
            continue
        weighted, total = sums.setdefault(arm, [0.0, 0.0])
        old_reward, old_weight = counted.get(outcome.decision_id, (0.0, 0.0))
        weighted += force.reward * force.weight - old_reward * old_weight
        total += force.weight - old_weight
        sums[arm] = [weighted, total]
        points = lines.setdefault(arm, [])
        if outcome.decision_id in counted:  # a replaced score moves the line, adds no point
            points[-1] = (points[-1][0], weighted / total)
        else:  # one point per decision: as many as the table counts
            points.append((len(points) + 1, weighted / total))
        counted[outcome.decision_id] = (force.reward, force.weight)
    return lines


def fits_workload(policy: str, workload_key: str) -> bool:
    """Whether `policy` runs on the workload as it is: contextual ones need contexts.

    A non-contextual policy still runs on a contextual workload, one copy per context
    (`learning.KeyedPolicy`); only a contextual policy on a workload without contexts cannot.
    """
    workload = experiment_workloads()[workload_key]
    return workload.context_dim is not None or policy == AUTO or not reads_context(policy)


def regret_figure(policies: Sequence[str], workload_key: str, horizon: int, seeds: int) -> Figure:
    """Mean cumulative regret of each policy over `seeds` runs, with a labelled 95% band."""
    from matplotlib.figure import Figure  # noqa: PLC0415 - see the module top

    from experiments.benchmarks.harness import arm_names, play  # noqa: PLC0415
    from experiments.plots import styles_for  # noqa: PLC0415

    workload = experiment_workloads()[workload_key]
    unfit = [name for name in policies if not fits_workload(name, workload_key)]
    if unfit:
        raise ConfigError(
            f"{', '.join(unfit)} need a context, and the {workload_key!r} workload has none"
        )
    figure = Figure(figsize=(9, 4.5))
    axis = figure.subplots()
    styles = styles_for(list(policies))
    for name in policies:
        curves = []
        for seed in range(seeds):
            environment = workload.build(horizon, seed)
            arms = arm_names(workload.n_arms)
            params = {"context_dim": workload.context_dim} if workload.context_dim else {}
            policy = make_policy(name, arms, seed=seed, **params)
            chosen = play(policy, environment)
            steps = np.arange(environment.horizon)
            gap = environment.step_means.max(axis=1) - environment.step_means[steps, chosen]
            curves.append(np.cumsum(gap))
        values = np.array(curves)
        mean = values.mean(axis=0)
        style = styles[name]
        label = name + (" (one per context)" if isinstance(policy, KeyedPolicy) else "")
        axis.plot(mean, label=label, **style)
        if seeds > 1:
            half = 1.96 * values.std(axis=0, ddof=1) / np.sqrt(seeds)
            axis.fill_between(
                np.arange(len(mean)),
                mean - half,
                mean + half,
                color=style["color"],
                alpha=0.15,
                label=f"{name}: 95% interval over {seeds} seeds",
            )
    axis.set(xlabel="step", ylabel="cumulative regret", title=workload.title)
    axis.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    figure.tight_layout()
    return figure
