"""Experiment figures: one distinct style per contender, labelled bands, a comparison figure."""

import numpy as np
from matplotlib.axes import Axes
from matplotlib.legend import Legend

from experiments.benchmarks.contenders import PEER_LABELS
from experiments.plots import (
    BASELINE_STYLES,
    POLICY_STYLES,
    Band,
    ValueRange,
    colours_for,
    comparison_figure,
    curves_figure,
    style_for,
    styles_for,
)
from experiments.runner import split_summary
from learning import available_policies


def _legend(axes: Axes) -> Legend:
    legend = axes.get_legend()
    assert legend is not None
    return legend


def _band(label: str) -> Band:
    steps = np.arange(1, 11)
    return Band(label, steps, steps * 1.0, steps * 0.9, steps * 1.1)


def test_every_policy_and_peer_in_one_figure_gets_its_own_style() -> None:
    labels = [*available_policies(), "numpy-ts", "numpy-ts-per-context", "mabwiser:thompson"]
    styles = styles_for(labels)
    assert len({(s["color"], s["linestyle"]) for s in styles.values()}) == len(labels)
    # a registered policy keeps its style whatever else is in the figure
    assert styles["thompson"] == style_for("thompson") == styles_for(["thompson"])["thompson"]


def test_curves_keep_distinct_colours_and_label_their_bands() -> None:
    figure = curves_figure("t", "regret", [_band("auto"), _band("numpy-ts")])
    axes = figure.axes[0]
    lines = {line.get_label(): line for line in axes.get_lines()}
    assert lines["auto"].get_color() != lines["numpy-ts"].get_color()
    legend = [text.get_text() for text in _legend(axes).get_texts()]
    assert legend == ["auto", "numpy-ts", "shaded: 95% interval over runs"]


def test_every_registered_policy_has_its_own_colour_and_keeps_it() -> None:
    policies = available_policies()
    assert set(policies) <= set(POLICY_STYLES), "a new policy needs its style in POLICY_STYLES"
    colours = [style_for(name)["color"] for name in policies]
    assert len(set(colours)) == len(policies)
    assert not set(colours) & {colour for colour, _ in BASELINE_STYLES.values()}
    # the same colour and dash whatever else shares the figure
    crowded = styles_for([*reversed(policies), "numpy-ts", "mabwiser:thompson", "random"])
    assert all(crowded[name] == style_for(name) for name in policies)
    assert (
        styles_for(["bayes_ucb", "thompson"])["bayes_ucb"]["color"]
        != style_for("thompson")["color"]
    )


def test_a_legend_has_one_entry_per_contender_not_two() -> None:
    names = [*available_policies(), "random"]
    figure = curves_figure("t", "regret", [_band(name) for name in names])
    legend = [text.get_text() for text in _legend(figure.axes[0]).get_texts()]
    assert legend == [*names, "shaded: 95% interval over runs"]


def test_bands_stay_inside_the_values_a_metric_can_take() -> None:
    steps = np.arange(1, 5)
    band = Band("thompson", steps, np.array([0.1, 1.0, 2.0, 3.9]), steps - 1.5, steps + 0.5)
    figure = curves_figure("t", "reward", [band], value_range=ValueRange(0.0, 1.0, per_step=True))
    (shade,) = figure.axes[0].collections
    outline = np.asarray(shade.get_paths()[0].vertices, dtype=float)
    assert outline[:, 1].min() >= 0.0
    assert np.all(outline[:, 1] <= outline[:, 0] + 1e-9)  # at most one reward per step
    clipped = band.clipped(ValueRange(0.0, None))
    assert clipped.low.tolist() == [0.0, 0.5, 1.5, 2.5]
    assert clipped.high.tolist() == band.high.tolist()
    assert band.clipped(None) is band


def test_the_comparison_figure_ranks_each_metric_best_first() -> None:
    per_contender, overall = split_summary(
        {"regret.a": 3.0, "regret.b": 1.0, "mean_reward.a": 0.2, "mean_reward.b": 0.9, "n": 5.0},
        ["a", "b"],
    )
    assert overall == {"n": 5.0}
    figure = comparison_figure("t", per_contender, lower_is_better=["regret"])
    regret_axes, reward_axes = figure.axes
    assert [t.get_text() for t in regret_axes.get_yticklabels()] == ["b", "a"]
    assert [t.get_text() for t in reward_axes.get_yticklabels()] == ["b", "a"]
    assert "lower is better" in regret_axes.get_title()


def test_a_few_unknown_labels_get_different_colours_not_just_dashes() -> None:
    styles = styles_for(["critical_questioning", "systematic_decomposition", "analogy"])
    assert len({style["color"] for style in styles.values()}) == 3


def test_every_policy_peer_and_baseline_has_a_colour_of_its_own() -> None:
    # MLflow's charts draw every run solid: two contenders told apart by dashes alone look alike
    # there (glr_thompson and epsilon_greedy once shared #de7921, MLflow's own pick).
    baselines = ["random", "uniform", "best_fixed", "oracle"]
    labels = [*available_policies(), *PEER_LABELS, *baselines]
    colours = [style_for(label)["color"] for label in labels]
    assert len(set(colours)) == len(labels), "two contenders share a colour"
    assert style_for("glr_thompson")["color"] != style_for("epsilon_greedy")["color"]


def test_colours_stay_distinct_past_the_palette_and_fixed_ones_keep_theirs() -> None:
    labels = [f"template_{index}" for index in range(45)] + ["thompson", "random", "numpy-ts"]
    colours = colours_for(labels)
    assert len(set(colours.values())) == len(labels)
    assert colours["thompson"] == POLICY_STYLES["thompson"][0]
    assert colours["random"] == BASELINE_STYLES["random"][0]
    assert colours_for(list(reversed(labels))) == colours  # the same set, the same colours
    assert all(styles_for(labels)[label]["color"] == colours[label] for label in labels)
