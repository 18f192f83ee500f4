"""The held-out split: reproducible, checkable, and apart from the replay suite."""

import pytest

from engine.domain.checkers import check_answer
from engine.errors import ConfigError
from experiments.heldout import HELDOUT_FAMILIES, heldout_suite
from experiments.online import Step
from experiments.online_report import choices_table, summarise, summary_table
from experiments.tasks import generate_suite


def test_the_split_is_reproducible_and_every_expected_answer_checks() -> None:
    suite = heldout_suite(seed=4, per_family=6)
    assert suite.fingerprint == heldout_suite(seed=4, per_family=6).fingerprint
    assert suite.families == tuple(HELDOUT_FAMILIES)
    for task in suite.tasks:
        assert check_answer(f"Answer: {task.expected}", task.expected, task.kind) == 1.0
        assert check_answer("Answer: -1", task.expected, task.kind) == 0.0


def test_no_held_out_query_is_a_replay_query() -> None:
    replay = {task.query for task in generate_suite(seed=4, per_family=20).tasks}
    assert not replay & {task.query for task in heldout_suite(seed=4, per_family=20).tasks}


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ConfigError, match="per_family"):
        heldout_suite(per_family=0)
    with pytest.raises(ConfigError, match="held-out families"):
        heldout_suite(families=["arithmetic"])


def test_the_final_window_interval_is_a_t_interval_over_orders() -> None:
    task = heldout_suite(seed=0, per_family=1).tasks[0]

    def run(rewards: list[float]) -> list[Step]:
        return [Step(task, reward, 1, 10, 0.5) for reward in rewards]

    # final window = last third: accuracies 1.0, 0.0 and 0.5 over the three orders
    summary = summarise("x", [run([0, 0, 1]), run([1, 1, 0]), run([0, 1, 0, 0, 1, 0])], 1 / 3)
    assert summary.final_mean == pytest.approx(0.5)
    assert summary.final_low == 0.0  # clipped: t(0.975, 2) * 0.5 / sqrt(3) = 1.24
    assert summary.final_high == 1.0
    assert summary.decisions == 12
    assert summary.median_tokens == 10


def test_one_order_has_no_interval_rather_than_all_of_zero_to_one() -> None:
    task = heldout_suite(seed=0, per_family=1).tasks[0]
    summary = summarise("x", [[Step(task, 1.0, 1, 10, 0.5), Step(task, 0.0, 1, 10, 0.5)]], 0.5)
    assert summary.final_mean == 0.0
    assert summary.final_low != summary.final_low  # NaN: one order has no spread to measure
    assert "| x | 0.0% [no interval: 1 order] | 50.0% |" in summary_table([summary], 0.5)


def test_a_family_outside_the_final_window_shows_no_figure_there() -> None:
    first, other = heldout_suite(
        seed=0, per_family=1, families=["word_length", "largest_number"]
    ).tasks
    steps = [Step(first, 1.0, 1, 10, 0.5, arm="a", tool="none")] * 2 + [
        Step(other, 0.0, 1, 10, 0.5, arm="a", tool="none")
    ]
    table = choices_table([steps], 1 / 3)  # the final window is the last step: `other` only
    assert f"| {first.family} | 2 | 100% | - |" in table
    assert f"| {other.family} | 1 | 0% | 0% |" in table
