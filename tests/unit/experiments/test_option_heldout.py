"""The held-out option families: reproducible, read as the engine reads them, one right option."""

import pytest

from engine.domain.options import answer_in_form, read_options
from engine.errors import ConfigError
from experiments.option_families import main, option_tasks
from experiments.option_heldout import OPTION_HELDOUT_FAMILIES, option_heldout_suite
from experiments.replay import check_task


def test_the_suite_is_reproducible_and_its_families_are_the_named_ones() -> None:
    suite = option_heldout_suite(seed=5, per_family=8)
    assert suite.fingerprint == option_heldout_suite(seed=5, per_family=8).fingerprint
    assert suite.fingerprint != option_heldout_suite(seed=6, per_family=8).fingerprint
    assert suite.families == ("multiple_choice", *OPTION_HELDOUT_FAMILIES)
    assert len(suite.tasks) == 8 * len(suite.families)


def test_every_question_is_read_with_its_options_and_exactly_one_of_them_is_right() -> None:
    for task in option_heldout_suite(seed=39, per_family=30).tasks:
        options = read_options(task.query)
        assert options is not None, task.query
        assert options.texts == task.options
        right = [
            i for i in range(len(task.options)) if check_task(answer_in_form(options, i), task)
        ]
        assert len(right) == 1, task.query


@pytest.mark.parametrize(
    ("family", "question", "answer"),
    [
        ("compare_numbers", "Is 52 greater than 14?", "Yes"),
        ("sum_true_false", "Is it true that 44 + 31 = 75?", "True"),
    ],
)
def test_a_written_family_means_what_it_asks(family: str, question: str, answer: str) -> None:
    tasks = [t for t in option_heldout_suite(seed=39, per_family=30).tasks if t.family == family]
    for task in tasks:
        stem = task.query.split("\n")[0]
        numbers = [int(n) for n in stem.rstrip("?").replace("=", " ").split() if n.isdigit()]
        truth = (
            numbers[0] > numbers[1] if len(numbers) == 2 else numbers[0] + numbers[1] == numbers[2]
        )
        right = task.options["ABCD".index(task.expected)]
        assert right == (answer if truth else {"Yes": "No", "True": "False"}[answer]), stem
    assert any(t.query.startswith(question) for t in tasks)


def test_the_option_experiments_pick_a_suite_and_refuse_a_bad_one() -> None:
    assert {t.family for t in option_tasks(2, "heldout")} == {
        "multiple_choice",
        *OPTION_HELDOUT_FAMILIES,
    }
    assert "anachronisms" in {t.family for t in option_tasks(2)}
    with pytest.raises(ConfigError, match="unknown option suite"):
        option_tasks(2, "public")
    with pytest.raises(ConfigError, match="per_family"):
        option_heldout_suite(per_family=0)
    with pytest.raises(SystemExit):
        main(["--home", "/nonexistent", "--per-family", "31"])
