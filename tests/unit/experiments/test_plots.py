"""Experiment figures: one distinct style per contender, labelled bands, a comparison figure."""

import numpy as np

from experiments.plots import Band, comparison_figure, curves_figure, style_for, styles_for
from experiments.runner import split_summary
from learning import available_policies


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
    labels = axes.get_legend_handles_labels()[1]
    assert "auto: 95% interval over runs" in labels


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
