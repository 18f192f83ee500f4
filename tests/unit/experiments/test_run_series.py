"""What the runner logs as curves: a contender's series, reference lines as runs of their own."""

import numpy as np
import pytest

from experiments.experiment import Curve, ExperimentResult, FigureSpec
from experiments.runner import leaders, reference_series


def test_reference_lines_become_series_of_their_own_under_the_figures_metric() -> None:
    steps = np.array([1, 2])
    reward = FigureSpec(
        "plots/reward.png",
        "t",
        "cumulative_reward",
        "reward",
        references={
            "best single (direct_answer)": (steps, np.array([0.5, 1.0])),
            "per-family oracle": (steps, np.array([1.0, 2.0])),
        },
    )
    coverage = FigureSpec(
        "plots/coverage.png", "t", "coverage_so_far", "coverage",
        references={"per-family oracle": (steps, np.array([0.9, 0.9]))},
    )  # fmt: skip
    series = reference_series(ExperimentResult([], {}, {}, figures=[reward, coverage]))
    assert series == {
        "best single (direct_answer)": {"cumulative_reward": ([1, 2], [0.5, 1.0])},
        "per-family oracle": {
            "cumulative_reward": ([1, 2], [1.0, 2.0]),
            "coverage_so_far": ([1, 2], [0.9, 0.9]),
        },
    }
    assert reference_series(ExperimentResult([], {}, {})) == {}


def test_a_curve_and_a_final_metric_never_share_a_name() -> None:
    """MLflow keeps one history per name: the final value would be the curve's point at step 0."""
    with pytest.raises(ValueError, match="accuracy"):
        Curve("a", {}, np.array([1, 2]), {"accuracy": np.ones((1, 2))}, {"accuracy": 1.0})
    with pytest.raises(ValueError, match="1-based"):
        Curve("a", {}, np.array([0, 1]), {"accuracy": np.ones((1, 2))}, {})
    Curve("a", {}, np.array([1, 2]), {"accuracy_so_far": np.ones((1, 2))}, {"accuracy": 1.0})


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
