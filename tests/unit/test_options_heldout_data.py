"""The held-out option questions (tests/data/options_heldout.json and options_heldout_2.json to
options_heldout_10.json) keep their documented shape.

Only the shape is checked, never a reader's answer: each set is held out for one measurement
(tests/data/README.md), so no unit test may run the option reader on it. What this guards is that
the measurement scores what the README says: well-formed items, no question twice, enough items and
enough questions that must be refused, and option texts that a reader could find in the question.
"""

import json
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).resolve().parents[1] / "data"
# Each file with its minimum number of items and of questions that must be refused.
MINIMUMS = {
    "options_heldout.json": (150, 50),
    "options_heldout_2.json": (220, 80),
    "options_heldout_3.json": (220, 85),
    "options_heldout_4.json": (220, 90),
    "options_heldout_5.json": (240, 95),
    "options_heldout_6.json": (240, 95),
    "options_heldout_7.json": (240, 95),
    "options_heldout_8.json": (240, 100),
    "options_heldout_9.json": (240, 100),
    "options_heldout_10.json": (240, 100),
}

FIELDS = {"question", "options", "form", "note"}
FORMS = {"letter", "word"}
# Yes/no and true/false questions are written with these canonical options, whatever the
# question's spelling ("(yes/no)", "TRUE or FALSE", or no options written at all); every other
# option is text the question itself contains.
CANONICAL_OPTIONS = (["Yes", "No"], ["True", "False"])


def item_problems(item: object) -> list[str]:
    """What is wrong with one item, as readable sentences; empty when it is well-formed."""
    if not isinstance(item, dict):
        return ["the item is not a JSON object"]
    if set(item) != FIELDS:
        return [f"fields {sorted(item)} are not {sorted(FIELDS)}"]
    problems = []
    question, options, form, note = item["question"], item["options"], item["form"], item["note"]
    if not isinstance(question, str) or not question.strip():
        problems.append("the question is not a non-empty string")
    if not isinstance(note, str) or not note.strip():
        problems.append("the note is not a non-empty string")
    if options is None:
        if form is not None:
            problems.append("a question without options has a form")
        return problems
    if form not in FORMS:
        problems.append(f"form {form!r} is not one of {sorted(FORMS)}")
    return problems + option_problems(options, question if isinstance(question, str) else "")


def option_problems(options: object, question: str) -> list[str]:
    """What is wrong with an item's option list: at least two distinct, trimmed, found texts."""
    if not isinstance(options, list) or len(options) < 2:
        return ["options is neither null nor a list of at least two"]
    trimmed = all(
        isinstance(option, str) and option and option == option.strip() for option in options
    )
    if not trimmed:
        return ["an option is not a non-empty trimmed string"]
    if len({option.casefold() for option in options}) != len(options):
        return ["two options are the same text"]
    if options in CANONICAL_OPTIONS:
        return []
    missing = [option for option in options if option.casefold() not in question.casefold()]
    return [f"options {missing} do not occur in the question"] if missing else []


def load_items(name: str) -> list[Any]:
    items = json.loads((DATA / name).read_text(encoding="utf-8"))
    assert isinstance(items, list), "the file is not a JSON list"
    return items


@pytest.mark.parametrize("name", MINIMUMS)
def test_every_item_is_well_formed(name: str) -> None:
    problems = [
        f"item {number}: {problem}"
        for number, item in enumerate(load_items(name))
        for problem in item_problems(item)
    ]
    assert not problems, "\n".join(problems)


def folded(question: str) -> str:
    # Case and spacing are folded so a near-copy cannot count twice in a measurement.
    return " ".join(question.casefold().split())


@pytest.mark.parametrize("name", MINIMUMS)
def test_no_question_is_written_twice(name: str) -> None:
    seen: dict[str, int] = {}
    repeated = []
    for number, item in enumerate(load_items(name)):
        key = folded(item["question"])
        if key in seen:
            repeated.append(f"items {seen[key]} and {number}")
        seen.setdefault(key, number)
    assert not repeated, f"the same question twice: {repeated}"


@pytest.mark.parametrize(("earlier", "later"), list(combinations(MINIMUMS, 2)))
def test_no_question_is_in_two_sets(earlier: str, later: str) -> None:
    # A later set is fresh: a question already measured in an earlier one is training data.
    first, second = (
        {folded(item["question"]) for item in load_items(name)} for name in (earlier, later)
    )
    shared = first & second
    assert not shared, f"questions in both sets: {sorted(shared)}"


@pytest.mark.parametrize("name", MINIMUMS)
def test_the_set_is_large_enough_and_holds_enough_refusals(name: str) -> None:
    items = load_items(name)
    minimum_items, minimum_negatives = MINIMUMS[name]
    negatives = sum(item["options"] is None for item in items)
    assert len(items) >= minimum_items, f"{len(items)} items, fewer than {minimum_items}"
    assert negatives >= minimum_negatives, f"{negatives} negatives, fewer than {minimum_negatives}"


def make_item(question: str, options: list[str] | None, form: str | None) -> dict[str, Any]:
    return {"question": question, "options": options, "form": form, "note": "n"}


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        (make_item("Q?", None, None), []),
        (make_item("Q?", None, "word"), ["has a form"]),
        (make_item("Is it?", ["Yes", "No"], "word"), []),
        (make_item("(A) x (B) y", ["x", "y"], "letter"), []),
        (make_item("(A) x (B) y", ["x", "z"], "letter"), ["occur"]),
        (make_item("(A) x (B) y", ["x", "y"], "label"), ["form"]),
        (make_item("x or X?", ["x", "X"], "word"), ["same text"]),
        (make_item("x?", ["x"], "word"), ["at least two"]),
        (make_item("x or y", [" x", "y"], "word"), ["trimmed"]),
        ({"question": "Q?", "options": None, "form": None}, ["fields"]),
        ({"question": "", "options": None, "form": None, "note": ""}, ["question", "note"]),
    ],
)
def test_the_checker_names_each_kind_of_problem(item: dict[str, Any], expected: list[str]) -> None:
    # The checks above pass on the real files; this shows each one can fail.
    problems = item_problems(item)
    assert len(problems) == len(expected), problems
    for problem, fragment in zip(problems, expected, strict=True):
        assert fragment in problem
