"""The parent run's own metrics: curves over steps, never a lone scalar (MLflow draws a bar)."""

import numpy as np
import pytest

from experiments.experiment import Curve, ExperimentResult, FigureSpec
from experiments.runner import leaders, parent_series


def _curve(label: str, steps: list[int], runs: list[list[float]], metric: str) -> Curve:
    return Curve(label, {}, np.array(steps), {metric: np.array(runs)}, {})


def test_best_and_worst_follow_each_step_and_the_metrics_direction() -> None:
    curves = [
        _curve("a", [1, 2, 3], [[0.2, 0.9, 0.5], [0.4, 0.7, 0.5]], "accuracy"),
        _curve("b", [1, 2, 3], [[0.6, 0.1, 0.8]], "accuracy"),
    ]
    series = parent_series(ExperimentResult(curves, {}, {}))
    # the mean over runs per contender, then the higher one at each step: accuracy is better high
    assert series["accuracy.best"] == ([1, 2, 3], [0.6, 0.8, 0.8])
    steps, worst = series["accuracy.worst"]
    assert steps == [1, 2, 3]
    assert worst == pytest.approx([0.3, 0.1, 0.5])


def test_metrics_sampled_at_different_steps_get_no_envelope() -> None:
    curves = [
        _curve("a", [1, 2], [[1.0, 2.0]], "regret"),
        _curve("b", [1, 3], [[1.0, 2.0]], "regret"),
    ]
    assert parent_series(ExperimentResult(curves, {}, {})) == {}


def test_reference_lines_become_curves_named_in_words() -> None:
    steps = np.array([1, 2])
    spec = FigureSpec(
        "plots/reward.png",
        "t",
        "cumulative_reward",
        "reward",
        references={"best single (direct_answer)": (steps, np.array([0.5, 1.0]))},
    )
    series = parent_series(ExperimentResult([], {}, {}, figures=[spec]))
    assert series == {"cumulative_reward.best_single_direct_answer": ([1, 2], [0.5, 1.0])}


def test_leaders_name_the_best_of_each_direction() -> None:
    per_contender = {
        "regret": {"a": 3.0, "b": 1.0},
        "bias": {"a": -0.1, "b": 0.3},
        "accuracy": {"a": 0.9, "b": 0.4},
    }
    assert leaders(per_contender, lower_is_better=["regret"], toward_zero=["bias"]) == {
        "thinkpath.best.regret": "b",
        "thinkpath.best.bias": "a",
        "thinkpath.best.accuracy": "a",
    }
