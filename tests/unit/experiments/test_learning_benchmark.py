"""The benchmark command end to end on a tiny scale, its options and its lineups."""

from pathlib import Path

import numpy as np
import pytest

from experiments.benchmarks.contenders import build_contender, lineup
from experiments.benchmarks.harness import arm_names
from experiments.benchmarks.latency import interleaved_latency
from experiments.benchmarks.learning import Task, main, parse_args, plan, run_task
from experiments.benchmarks.peers import ContextBlind, NumPyThompson
from learning import available_policies
from learning.registry import policy_class


def test_every_registered_context_free_policy_runs_on_the_stationary_workload() -> None:
    keys = {row.key for row in lineup("stationary", contextual=False)}
    context_free = [
        name
        for name in available_policies()
        if name == "auto" or not policy_class(name).is_contextual
    ]
    assert len(context_free) >= 3
    for name in context_free:
        assert f"ours:{name}" in keys
    assert "ours:linucb" not in keys
    assert {"numpy-ts", "mabwiser:thompson", "mabwiser:ucb1", "naive-variance"} <= keys


def test_the_contextual_lineup_marks_context_free_policies() -> None:
    rows = {row.key: row for row in lineup("contextual", contextual=True)}
    assert rows["ours:thompson"].label == "thompson (ignores context)"
    assert rows["ours:auto"].uses_context
    assert rows["ours:linucb"].uses_context
    assert not rows["ours:thompson"].uses_context
    assert {"numpy-ts-per-context", "mabwiser:linucb"} <= set(rows)
    assert isinstance(build_contender("ours:thompson", arm_names(5), 5, 0), ContextBlind)


def test_plan_puts_mabwiser_first_and_covers_every_seed() -> None:
    tasks = plan(["stationary"], seeds=2, horizon=10)
    assert tasks[0].contender.key.startswith("mabwiser:")
    by_contender: dict[str, set[int]] = {}
    for task in tasks:
        by_contender.setdefault(task.contender.key, set()).add(task.seed)
    assert all(seeds == {0, 1} for seeds in by_contender.values())


def test_plan_skips_by_policy_name_or_key() -> None:
    keys = {task.contender.key for task in plan(["stationary"], 2, 10, ["thompson", "numpy-ts"])}
    assert "ours:thompson" not in keys
    assert "numpy-ts" not in keys
    assert "ours:ucb1" in keys


def test_run_task_reports_the_regret_of_the_environment() -> None:
    row = next(r for r in lineup("hard", contextual=False) if r.key == "numpy-ts")
    outcome = run_task(Task("hard", row, seed=1, horizon=300))
    assert 0.0 < outcome.regret <= 300 * 0.05  # each wrong pull costs exactly 0.05 here
    assert outcome.regret == pytest.approx(round(outcome.regret / 0.05) * 0.05)


def test_latency_pairs_every_round() -> None:
    latency = interleaved_latency(NumPyThompson, 4, rounds=3, block=5)
    assert latency.rounds == 3
    assert np.isfinite([latency.contender_us, latency.reference_us, latency.ratio]).all()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seeds", "1"], "--seeds must be at least 2"),
        (["--horizon", "1"], "--horizon must be at least 2"),
        (["--workers", "3"], "--workers must be 1 or 2"),
        (["--workloads", "sideways"], "invalid choice: 'sideways'"),
    ],
)
def test_bad_options_are_usage_errors_naming_the_option(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse_args(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_quick_defaults() -> None:
    args = parse_args(["--quick"])
    assert (args.seeds, args.horizon, args.latency_rounds) == (3, 600, 20)
    assert (parse_args([]).seeds, parse_args([]).horizon) == (20, 10_000)


@pytest.mark.slow
def test_main_prints_and_writes_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "bench.md"
    argv = ["--seeds", "2", "--horizon", "60", "--workloads", "hard", "--workers", "1"]
    assert main([*argv, "--latency-rounds", "1", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert out.read_text() == printed
    assert "### Stationary Bernoulli, K=10, one arm at 0.5 and nine at 0.45" in printed
    assert "| NumPy TS (reference) | peer |" in printed
    assert "| MABWiser TS | 100 |" in printed


@pytest.mark.parametrize("workload", ["stationary", "contextual"])
def test_run_task_records_what_auto_and_the_naive_chooser_picked(workload: str) -> None:
    rows = {row.key: row for row in lineup(workload, contextual=workload == "contextual")}
    auto = run_task(Task(workload, rows["ours:auto"], seed=0, horizon=200))
    naive = run_task(Task(workload, rows["naive-variance"], seed=0, horizon=200))
    assert auto.choice in available_policies()
    assert auto.choice != "auto"
    assert naive.choice in {"thompson", "epsilon_greedy", "lints", "linucb"}
    assert run_task(Task(workload, rows["ours:thompson"], seed=0, horizon=20)).choice is None
