"""The report: regret tables, latency table and target verdicts computed from the results."""

from pathlib import Path

import pytest

from engine.errors import ConfigError
from experiments.benchmarks.contenders import Contender
from experiments.benchmarks.latency import Latency
from experiments.benchmarks.report import render
from experiments.benchmarks.results import (
    BenchmarkResults,
    LatencyRow,
    reuse_peer_runs,
    save_runs,
)

OURS_TS = Contender("ours:thompson", "thompson", "ThinkPath")
DRIFT = Contender("ours:glr_thompson", "glr_thompson", "ThinkPath")
NUMPY = Contender("numpy-ts", "NumPy TS (reference)", "peer")
LINTS = Contender("ours:lints", "lints", "ThinkPath", uses_context=True)
BLIND_TS = Contender("ours:thompson", "thompson (ignores context)", "ThinkPath")
MABWISER = Contender("mabwiser:thompson", "MABWiser TS", "peer")


def _results(drift_regret: list[float], ours: list[float], numpy: list[float]) -> BenchmarkResults:
    results = BenchmarkResults(
        "python -m experiments.benchmarks.learning --quick",
        seeds=3,
        horizon=100,
        workload_titles={"stationary": "Stationary", "drift": "Drift", "contextual": "Ctx"},
    )
    for seed, (a, b) in enumerate(zip(ours, numpy, strict=True)):
        results.runset("stationary", OURS_TS).add(seed, a, 0.1, None)
        results.runset("stationary", NUMPY).add(seed, b, 0.1, None)
        results.runset("stationary", DRIFT).add(seed, a * 1.1, 0.1, None)
        results.runset("contextual", LINTS).add(seed, 120.0 + seed, 0.1, None)
        results.runset("contextual", BLIND_TS).add(seed, 900.0 + seed, 0.1, None)
    for seed, value in enumerate(drift_regret):
        results.runset("drift", DRIFT).add(seed, value, 0.2, "x")
    return results


def _render(drift_regret: list[float], ours: list[float], numpy: list[float]) -> str:
    return render(_results(drift_regret, ours, numpy), DRIFT.key)


def test_verdicts_follow_the_figures() -> None:
    text = render(
        _results([280.0, 285.0, 290.0], [60.0, 61.0, 59.0], [60.0, 60.0, 60.0]), DRIFT.key
    )
    assert "**met**: drift, glr_thompson = 285.0" in text
    assert "**met**: stationary, glr_thompson / thompson = 1.10" in text
    assert "**met**: stationary, thompson minus NumPy TS (reference)" in text
    assert "**met**: contextual, lints = 121.0" in text
    assert "ignores context) = " not in text  # a context-blind row is not held to the target


def test_a_missed_target_says_not_met() -> None:
    text = render(
        _results([300.0, 310.0, 305.0], [80.0, 81.0, 82.0], [60.0, 60.0, 61.0]), DRIFT.key
    )
    assert "**not met**: drift, glr_thompson = 305.0" in text
    assert "**not met**: stationary, thompson minus NumPy TS (reference)" in text


def test_tables_sort_by_mean_regret_and_show_choices() -> None:
    text = render(
        _results([280.0, 290.0, 300.0], [50.0, 51.0, 52.0], [60.0, 61.0, 62.0]), DRIFT.key
    )
    stationary = text.split("### Stationary")[1].split("###")[0]
    assert stationary.index("| thompson |") < stationary.index("| NumPy TS (reference) |")
    assert "chose: x x3" in text.split("### Drift")[1]
    assert "Vowpal Wabbit" in text.split("### Drift")[1]


def test_latency_rows_and_speedup() -> None:
    results = _results([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    results.latency += [
        LatencyRow(OURS_TS, 10, Latency(6.0, 10.0, 0.6, 30)),
        LatencyRow(OURS_TS, 100, Latency(8.0, 20.0, 0.4, 30)),
        LatencyRow(MABWISER, 100, Latency(600.0, 20.0, 30.0, 30)),
    ]
    text = render(results, DRIFT.key)
    assert "**met**: K=10, thompson / NumPy TS = 0.60" in text
    assert "**met**: K=100, MABWiser TS / thompson = 75.0x faster" in text
    assert "| thompson | 10 | 6.0 | 10.0 | 0.60 |" in text


def test_a_seed_recorded_twice_is_refused() -> None:
    results = _results([1.0, 2.0], [1.0, 2.0], [1.0, 2.0])
    with pytest.raises(ConfigError, match="seed 0 of ours:thompson recorded twice"):
        results.runset("stationary", OURS_TS).add(0, 5.0, 0.1, None)


def test_saved_runs_give_back_only_the_peer_rows(tmp_path: Path) -> None:
    path = tmp_path / "runs.json"
    save_runs(_results([1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.5]), path)
    fresh = BenchmarkResults("again", seeds=2, horizon=100, workload_titles={"stationary": "S"})
    assert reuse_peer_runs(fresh, path) == {("stationary", "numpy-ts")}
    assert fresh.find("stationary", "numpy-ts") is not None
    assert fresh.runs["stationary"]["numpy-ts"].regret_by_seed == {0: 7.0, 1: 8.0}
    assert fresh.find("stationary", "ours:thompson") is None


def test_reuse_refuses_another_horizon_or_a_broken_file(tmp_path: Path) -> None:
    path = tmp_path / "runs.json"
    save_runs(_results([1.0, 2.0], [4.0, 5.0], [7.0, 8.0]), path)
    other = BenchmarkResults("again", seeds=2, horizon=999, workload_titles={"stationary": "S"})
    with pytest.raises(ConfigError, match="T=100, this run asks for T=999"):
        reuse_peer_runs(other, path)
    path.write_text("{not json")
    with pytest.raises(ConfigError, match="cannot reuse runs"):
        reuse_peer_runs(other, path)
    assert other.runs == {}


def test_reuse_skips_rows_missing_a_seed(tmp_path: Path) -> None:
    path = tmp_path / "runs.json"
    save_runs(_results([1.0, 2.0], [4.0, 5.0], [7.0, 8.0]), path)
    more_seeds = BenchmarkResults("x", seeds=3, horizon=100, workload_titles={"stationary": "S"})
    assert reuse_peer_runs(more_seeds, path) == set()
