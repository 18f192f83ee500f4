"""The pinned BIG-bench sample: the loader, the lettered options and every format's checker."""

import hashlib
import json

import pytest

from engine.errors import ConfigError
from experiments.bigbench.checks import check_targets, kind_of_targets
from experiments.bigbench.sample import DEVELOPMENT_FAMILIES, PINNED, SAMPLE_DIR
from experiments.bigbench.suite import bigbench_suite, load_family
from experiments.replay import check_task
from experiments.tasks import Task

SUITE = bigbench_suite(per_family=30)
TASKS = SUITE.tasks
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def test_the_sample_holds_thirty_tasks_of_each_development_family() -> None:
    assert SUITE.families == DEVELOPMENT_FAMILIES
    assert len(DEVELOPMENT_FAMILIES) >= 10
    assert len(TASKS) == 30 * len(DEVELOPMENT_FAMILIES)
    assert len({task.task_id for task in TASKS}) == len(TASKS)
    assert {task.kind for task in TASKS} == {"choice", "numeric", "sequence", "text"}
    for task in TASKS:
        assert task.targets
        assert task.targets[0] == task.expected


def test_the_manifest_pins_the_sdist_and_every_file() -> None:
    manifest = json.loads((SAMPLE_DIR / "sample.json").read_text())
    assert manifest["source"]["sha256"] == PINNED.sha256
    assert manifest["source"]["version"] == "1.0.0"
    for family, entry in manifest["families"].items():
        content = (SAMPLE_DIR / entry["file"]).read_bytes()
        assert hashlib.sha256(content).hexdigest() == entry["sha256"], family
        assert entry["examples"] == 30
    assert "Apache License" in (SAMPLE_DIR / "LICENSE").read_text()
    attribution = (SAMPLE_DIR / "README.md").read_text()
    assert PINNED.sha256 in attribution
    assert "arXiv:2206.04615" in attribution


def test_a_smaller_suite_is_a_prefix_and_bad_requests_are_refused() -> None:
    small = bigbench_suite(per_family=3, families=["hyperbaton", "matrixshapes"])
    assert [t.task_id for t in small.tasks] == [
        t.task_id for t in TASKS if t.family in ("hyperbaton", "matrixshapes")
    ][:3] + [t.task_id for t in TASKS if t.family == "matrixshapes"][:3]
    with pytest.raises(ConfigError, match="development families"):
        bigbench_suite(per_family=3, families=["some_held_out_task"])
    with pytest.raises(ConfigError, match="between 1 and 30"):
        bigbench_suite(per_family=31)


def test_multiple_choice_is_posed_as_lettered_options_in_a_fixed_shuffled_order() -> None:
    choice = [task for task in TASKS if task.kind == "choice"]
    for task in choice:
        lines = [f"{LETTERS[i]}. {option}" for i, option in enumerate(task.options)]
        assert "\n".join(lines) in task.query
        assert all(letter in LETTERS[: len(task.options)] for letter in task.targets)
    # temporal_sequences lists its right answer first in every example; posed, it must not be.
    temporal = [task.expected for task in choice if task.family == "temporal_sequences"]
    assert len(set(temporal)) >= 3
    assert bigbench_suite(per_family=30).tasks == TASKS  # the order is fixed, not drawn


def test_every_option_with_the_top_score_is_accepted() -> None:
    # reasoning_about_colored_objects scores a count both as a digit and as a word.
    both = [task for task in TASKS if len(task.targets) == 2 and task.kind == "choice"]
    assert both
    task = both[0]
    digit, word = (task.options[LETTERS.index(letter)] for letter in task.targets)
    assert {digit, word} <= set(task.options)
    for answer in (digit, word, *task.targets):
        assert check_task(f"Answer: {answer}", task) == 1.0


def _wrong_letter(task: Task) -> str:
    return next(letter for letter in LETTERS[: len(task.options)] if letter not in task.targets)


@pytest.mark.parametrize("task", [t for t in TASKS if t.kind == "choice"], ids=lambda t: t.task_id)
def test_choice_accepts_the_letter_or_the_text_and_rejects_another(task: Task) -> None:
    right_text = task.options[LETTERS.index(task.expected)]
    assert check_task(f"Answer: {task.expected}", task) == 1.0
    assert check_task(f"The answer is {task.expected}.", task) == 1.0
    assert check_task(f"Answer: {right_text}", task) == 1.0
    wrong = _wrong_letter(task)
    assert check_task(f"Answer: {wrong}", task) == 0.0
    assert check_task(f"Answer: {task.options[LETTERS.index(wrong)]}", task) == 0.0
    assert check_task("I cannot tell.", task) == 0.0


@pytest.mark.parametrize("task", [t for t in TASKS if t.kind != "choice"], ids=lambda t: t.task_id)
def test_exact_targets_are_accepted_as_given_and_near_misses_rejected(task: Task) -> None:
    target = task.expected
    assert kind_of_targets(task.targets) == task.kind
    assert check_task(f"Working it out...\nAnswer: {target}", task) == 1.0
    assert check_task(target, task) == 1.0
    if task.kind == "numeric":
        assert check_task(f"Answer: {int(target) + 1}", task) == 0.0
    elif task.kind == "sequence":
        inner = target.strip()[1:-1]
        longer = f"{target.strip()[0]}{inner}{', ' if inner else ''}7{target.strip()[-1]}"
        assert check_task(f"Answer: {longer}", task) == 0.0
    else:
        words = target.split()
        wrong = " ".join(words[:-1]) if len(words) > 1 else target + "x"
        assert check_task(f"Answer: {wrong}", task) == 0.0
    assert check_task("", task) == 0.0


def test_text_checks_keep_case_and_punctuation_where_the_edit_is_the_task() -> None:
    editing = load_family("simple_text_editing")
    original = editing[0].query.split("'", 2)[1]  # the text to edit, as the question quotes it
    changed = [task for task in editing if task.expected != original]
    assert changed
    for task in changed:
        assert check_task(f"Edited: {task.expected}", task) == 1.0
        assert check_task(f"Edited: {original}", task) == 0.0  # the unedited text is wrong
        assert check_task(task.expected.upper(), task) == 0.0
    element = next(t for t in TASKS if t.family == "periodic_elements")
    assert check_task(f"Answer: **{element.expected.title()}**.", element) == 1.0


def test_a_sequence_is_read_from_the_answer_line_not_the_working() -> None:
    assert check_targets("(2,3) times (3,4)\nAnswer: (2,4)", ["(2,4)"], "sequence") == 1.0
    assert check_targets("Answer: (2,4)\nno wait", ["(2,3)"], "sequence") == 0.0
    assert check_targets("Answer: []", ["[]"], "sequence") == 1.0
    assert check_targets("Answer: 3", ["[3]"], "sequence") == 0.0
    with pytest.raises(ValueError, match="unknown public task kind"):
        check_targets("x", ["x"], "fuzzy")
