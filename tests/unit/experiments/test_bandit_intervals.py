"""A simulator experiment reports regret intervals inside the values regret can take."""

import re
from pathlib import Path

from experiments.benchmarks.harness import summarise
from experiments.experiment import ExperimentContext
from experiments.registry import get_experiment, resolve_params


def test_a_regret_interval_never_reaches_below_zero(tmp_path: Path) -> None:
    experiment = get_experiment("drift-abrupt")
    overrides = {"policies": "thompson,ucb1,glr_thompson", "seeds": "2", "horizon": "60"}
    result = experiment.execute(resolve_params(experiment, overrides), ExperimentContext(tmp_path))
    raw = {
        curve.label: summarise(curve.series["cumulative_regret"][:, -1].tolist()).low
        for curve in result.curves
    }
    # two seeds make a t interval 12.7 standard errors wide: it does reach below 0 here
    assert min(raw.values()) < 0
    for curve in result.curves:
        assert 0.0 <= curve.final["regret_ci_low"] <= curve.final["regret"]
        assert curve.final["regret_ci_high"] >= curve.final["regret"]
    # and the tables a reader sees say so too
    intervals = re.findall(r"\[(-?[\d.]+), (-?[\d.]+)\]", result.tables["results.md"])
    assert len(intervals) == len(result.curves)
    assert all(float(low) >= 0 for low, _ in intervals)
    rows = [row.split(",") for row in result.tables["results.csv"].splitlines()[1:]]
    assert all(float(row[2]) >= 0 for row in rows)  # contender,regret,regret_ci_low,...
