"""The playground's figures: arm posteriors, reward over time, simulated regret.

Arms are drawn top to bottom in the order the Arms table lists them, the arm just chosen is
highlighted, and every policy keeps its colour and line style from `experiments.plots.style_for`.
"""

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator
from scipy.stats import beta

from engine.domain.models import ArmStats
from engine.domain.records import LearnedOutcome
from engine.errors import ConfigError
from experiments.benchmarks.harness import arm_names, play
from experiments.environments import experiment_workloads
from experiments.plots import styles_for
from learning import KeyedPolicy, make_policy
from learning.registry import AUTO, reads_context

__all__ = ["fits_workload", "posterior_figure", "regret_figure", "reward_figure"]

HIGHLIGHT = "tab:orange"


def posterior_figure(stats: Sequence[ArmStats], title: str, chosen: str | None = None) -> Figure:
    """Mean reward with a 90% Beta credible interval per arm, and P(best) beside it.

    Arms run top to bottom in the order given (the table's order); `chosen` is drawn in orange.
    """
    figure = Figure(figsize=(8, max(2.5, 0.35 * len(stats) + 1.2)))
    means_axis, best_axis = figure.subplots(1, 2, sharey=True, width_ratios=[3, 1])
    labels = [stat.arm_id + ("  (chosen)" if stat.arm_id == chosen else "") for stat in stats]
    positions = np.arange(len(stats))
    successes = np.array([(stat.mean_reward or 0.0) * stat.pulls for stat in stats])
    failures = np.array([stat.pulls for stat in stats]) - successes
    low, high = beta.ppf([[0.05], [0.95]], 1 + successes, 1 + failures)
    means = (1 + successes) / (2 + successes + failures)
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
    best = [stat.prob_best or 0.0 for stat in stats]
    best_axis.barh(positions, best, color=colours)
    best_axis.set(xlim=(0, 1), xlabel="P(best)")
    if stats and all(stat.prob_best is None for stat in stats):
        best_axis.text(0.5, 0.5, "needs a query", ha="center", transform=best_axis.transAxes)
    figure.tight_layout()
    return figure


def reward_figure(outcomes: Sequence[LearnedOutcome], most: int = 8) -> Figure:
    """Each path arm's running mean reward over the outcome log (the `most` most used arms)."""
    figure = Figure(figsize=(9, 3.8))
    axis = figure.subplots()
    by_arm: dict[str, list[tuple[int, float]]] = {}
    for outcome in outcomes:
        arm = outcome.choices.get("path")
        if arm is not None and outcome.source != "tool":  # a tool's own result is not the path's
            by_arm.setdefault(arm, []).append((outcome.seq, outcome.reward))
    shown = sorted(by_arm.items(), key=lambda item: -len(item[1]))[:most]
    styles = styles_for([arm for arm, _ in shown])
    for arm, points in shown:
        seqs, rewards = zip(*points, strict=True)
        running = np.cumsum(rewards) / np.arange(1, len(rewards) + 1)
        style = styles[arm]
        axis.plot(seqs, running, marker="." if len(points) < 30 else None, label=arm, **style)
    axis.set(xlabel="outcome #", ylabel="running mean reward", ylim=(-0.05, 1.05))
    axis.xaxis.set_major_locator(MaxNLocator(integer=True))
    axis.set_title("path arms: reward over time")
    if by_arm:  # beside the axes, not on them: a legend inside covers the lines
        axis.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    else:
        axis.text(0.5, 0.5, "no outcomes yet: ask and score", ha="center", transform=axis.transAxes)
    figure.tight_layout()
    return figure


def fits_workload(policy: str, workload_key: str) -> bool:
    """Whether `policy` runs on the workload as it is: contextual ones need contexts.

    A non-contextual policy still runs on a contextual workload, one copy per context
    (`learning.KeyedPolicy`); only a contextual policy on a workload without contexts cannot.
    """
    workload = experiment_workloads()[workload_key]
    return workload.context_dim is not None or policy == AUTO or not reads_context(policy)


def regret_figure(policies: Sequence[str], workload_key: str, horizon: int, seeds: int) -> Figure:
    """Mean cumulative regret of each policy over `seeds` runs, with a labelled 95% band."""
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
