"""The task suite is reproducible and every task's answer passes the engine's exact checker."""

import pytest

from engine.errors import ConfigError
from experiments.regex_families import family
from experiments.replay import check_task
from experiments.tasks import FAMILIES, generate_suite


def test_the_same_seed_gives_the_same_suite_and_another_seed_another() -> None:
    assert generate_suite(seed=4, per_family=5) == generate_suite(seed=4, per_family=5)
    assert generate_suite(seed=4).fingerprint != generate_suite(seed=5).fingerprint


def test_families_are_independent_of_each_other() -> None:
    alone = generate_suite(seed=2, per_family=3, families=["date_arithmetic"])
    together = generate_suite(seed=2, per_family=3)
    dates = [task for task in together.tasks if task.family == "date_arithmetic"]
    assert list(alone.tasks) == dates


def test_every_family_is_generated_with_its_checker_kind() -> None:
    suite = generate_suite(seed=0, per_family=4)
    assert suite.families == tuple(FAMILIES)
    assert {task.kind for task in suite.tasks} == {"numeric", "exact", "choice", "date"}
    assert len({task.task_id for task in suite.tasks}) == len(suite.tasks)


def test_the_expected_answer_is_right_and_another_is_wrong() -> None:
    for task in generate_suite(seed=11, per_family=25).tasks:
        assert check_task(f"Working...\nAnswer: {task.expected}", task) == 1.0, task
        assert check_task("Answer: 987654", task) == 0.0, task


def test_the_answers_are_actually_correct() -> None:
    by_family = {task.family: task for task in generate_suite(seed=1, per_family=1).tasks}
    letters = by_family["letter_count"]
    word, letter = letters.query.split("'")[3], letters.query.split("'")[1]
    assert letters.expected == str(word.count(letter))
    choice = by_family["multiple_choice"]
    assert choice.expected in "ABC"
    assert len(choice.options) == 3


def test_the_engine_classifies_each_family_consistently() -> None:
    suite = generate_suite(seed=3, per_family=10)
    for name in FAMILIES:
        engine_families = {family(task.query) for task in suite.tasks if task.family == name}
        assert len(engine_families) == 1, (name, engine_families)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [({"per_family": 0}, "per_family"), ({"families": ["poetry"]}, "poetry")],
)
def test_bad_arguments_are_named(arguments: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        generate_suite(**arguments)  # type: ignore[arg-type]
