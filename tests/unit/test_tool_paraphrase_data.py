"""The held-out tool paraphrases (tests/data/tool_paraphrases.jsonl) keep their documented shape.

Only the shape is checked here, never a tool's answer: the set is held out (tests/data/README.md),
so no test may run a tool on it and pass or fail by the result. What this test guards is that a
run over the file scores what the README says it scores: unique ids, known kinds, answers that
parse, tolerances that match the answers, every kind above its minimum and every covers tag
documented (and every documented tag used).
"""

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).resolve().parents[1] / "data"
ROWS_PATH = DATA / "tool_paraphrases.jsonl"
README_PATH = DATA / "README.md"

MINIMUM_PER_KIND = {"arithmetic": 45, "units": 55, "letters": 45, "number_list": 36, "other": 40}
MINIMUM_TOTAL = 240
ID_PREFIX = {
    "arithmetic": "arith",
    "units": "units",
    "letters": "letters",
    "number_list": "list",
    "other": "other",
}
FIELDS = {"id", "kind", "question", "answer", "answer_kind", "tolerance", "covers"}
# Plain decimal as the README defines it: no separators, no exponent, no "+", no trailing zeros
# after the point (so "1,200", "1e3" and "2.50" are refused: a checker may read them otherwise).
PLAIN_DECIMAL = re.compile(r"-?(0|[1-9]\d*)(\.\d*[1-9])?")
WHOLE = re.compile(r"-?\d+")
LARGEST_TOLERANCE = 1e-3
TAG_LINE = re.compile(r"^- `([a-z_]+)`:", re.MULTILINE)


def documented_tags(readme: str) -> set[str]:
    """The tags listed under the README's "Covers tags" heading, one `- `tag`: meaning` a line."""
    _, found, section = readme.partition("### Covers tags")
    if not found:
        return set()
    return set(TAG_LINE.findall(section))


def load_rows(path: Path) -> list[dict[str, Any]]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        row = json.loads(line)
        assert isinstance(row, dict), f"line {number} is not a JSON object"
        rows.append(row)
    return rows


def _answer_problems(row: dict[str, Any]) -> list[str]:
    answer, answer_kind, tolerance = row["answer"], row["answer_kind"], row["tolerance"]
    if row["kind"] == "other":
        unanswered = (answer, answer_kind, tolerance) == (None, None, None)
        return [] if unanswered else ["an 'other' question has an answer, answer_kind or tolerance"]
    if not isinstance(answer, str) or not answer.strip():
        return ["the answer is not a non-empty string"]
    if answer_kind == "text":
        return [] if tolerance is None else ["a text answer has a tolerance"]
    if answer_kind == "numeric":
        return _numeric_problems(answer, tolerance)
    return [f"unknown answer_kind {answer_kind!r}"]


def _numeric_problems(answer: str, tolerance: object) -> list[str]:
    if not PLAIN_DECIMAL.fullmatch(answer):
        return [f"numeric answer {answer!r} is not a plain decimal"]
    if isinstance(tolerance, bool) or not isinstance(tolerance, int | float):
        return ["a numeric answer has no tolerance"]
    if not 0 <= tolerance <= LARGEST_TOLERANCE:
        return [f"tolerance {tolerance} is outside [0, {LARGEST_TOLERANCE}]"]
    if WHOLE.fullmatch(answer) and tolerance != 0:
        return ["a whole-number answer must be exact (tolerance 0)"]
    return []


def row_problems(row: dict[str, Any], tags: set[str]) -> list[str]:
    """What is wrong with one record, each as a sentence; empty when nothing is."""
    if set(row) != FIELDS:
        return [f"fields {sorted(set(row) ^ FIELDS)} missing or unknown"]
    kind = row["kind"]
    if kind not in MINIMUM_PER_KIND:
        return [f"unknown kind {kind!r}"]
    problems = []
    if not re.fullmatch(rf"{ID_PREFIX[kind]}-\d{{3}}", str(row["id"])):
        problems.append(f"id {row['id']!r} does not name its kind {kind!r}")
    if not isinstance(row["question"], str) or not row["question"].strip():
        problems.append("the question is empty")
    covers = row["covers"]
    if not isinstance(covers, list) or not covers:
        problems.append("covers is not a non-empty list")
    else:
        problems.extend(f"tag {tag!r} is not documented" for tag in covers if tag not in tags)
        if len(set(covers)) != len(covers):
            problems.append("covers repeats a tag")
    return problems + _answer_problems(row)


def file_problems(rows: list[dict[str, Any]], tags: set[str]) -> list[str]:
    """What is wrong with the whole set: each record's problems, then the set's own."""
    problems = [f"{row.get('id')}: {p}" for row in rows for p in row_problems(row, tags)]
    for field in ("id", "question"):
        repeated = [value for value, n in Counter(row.get(field) for row in rows).items() if n > 1]
        problems.extend(f"{field} {value!r} appears more than once" for value in repeated)
    per_kind = Counter(row.get("kind") for row in rows)
    problems.extend(
        f"{kind}: {per_kind[kind]} questions, fewer than {least}"
        for kind, least in MINIMUM_PER_KIND.items()
        if per_kind[kind] < least
    )
    if len(rows) < MINIMUM_TOTAL:
        problems.append(f"{len(rows)} questions in all, fewer than {MINIMUM_TOTAL}")
    used = {tag for row in rows if isinstance(row.get("covers"), list) for tag in row["covers"]}
    problems.extend(f"documented tag {tag!r} is never used" for tag in sorted(tags - used))
    return problems


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    return load_rows(ROWS_PATH)


@pytest.fixture(scope="module")
def tags() -> set[str]:
    return documented_tags(README_PATH.read_text(encoding="utf-8"))


def test_the_held_out_file_has_its_documented_shape(rows, tags) -> None:
    assert file_problems(rows, tags) == []


def test_the_readme_documents_the_tags_of_every_kind(tags) -> None:
    # A heading renamed or a list reformatted would leave no tags, and every row would then fail
    # with a confusing message; say so plainly instead.
    assert {"distractor", "compound_unit", "reverse", "next_in_sequence", "decoy"} <= tags
    # The two classes of mistake issue 27 found in the exact tools: a power of a unit read as a
    # value, and a question about one part of a phrase answered about the whole phrase.
    assert {"unit_power", "selects_part"} <= tags


GOOD_NUMERIC = {
    "id": "arith-001",
    "kind": "arithmetic",
    "question": "What is 2 and 3?",
    "answer": "5",
    "answer_kind": "numeric",
    "tolerance": 0,
    "covers": ["bare"],
}
GOOD_TEXT = GOOD_NUMERIC | {
    "id": "letters-001",
    "kind": "letters",
    "answer": "pots",
    "answer_kind": "text",
    "tolerance": None,
}
GOOD_OTHER = GOOD_NUMERIC | {
    "id": "other-001",
    "kind": "other",
    "answer": None,
    "answer_kind": None,
    "tolerance": None,
}


@pytest.mark.parametrize("good", [GOOD_NUMERIC, GOOD_TEXT, GOOD_OTHER])
def test_a_well_formed_record_has_no_problems(good) -> None:
    assert row_problems(good, {"bare"}) == []


@pytest.mark.parametrize(
    ("record", "problem"),
    [
        (GOOD_NUMERIC | {"kind": "maths"}, "unknown kind"),
        (GOOD_NUMERIC | {"id": "units-001"}, "does not name its kind"),
        (GOOD_NUMERIC | {"question": "  "}, "question is empty"),
        (GOOD_NUMERIC | {"answer": "1,200"}, "not a plain decimal"),
        (GOOD_NUMERIC | {"answer": "1e3"}, "not a plain decimal"),
        (GOOD_NUMERIC | {"answer": "2.50", "tolerance": 1e-9}, "not a plain decimal"),
        (GOOD_NUMERIC | {"answer": "five"}, "not a plain decimal"),
        (GOOD_NUMERIC | {"answer": 5}, "not a non-empty string"),
        (GOOD_NUMERIC | {"tolerance": None}, "has no tolerance"),
        (GOOD_NUMERIC | {"tolerance": 0.01}, "outside"),
        (GOOD_NUMERIC | {"tolerance": 1e-9}, "must be exact"),
        (GOOD_NUMERIC | {"answer_kind": "number"}, "unknown answer_kind"),
        (GOOD_NUMERIC | {"covers": []}, "non-empty list"),
        (GOOD_NUMERIC | {"covers": ["bare", "bare"]}, "repeats a tag"),
        (GOOD_NUMERIC | {"covers": ["sarcasm"]}, "'sarcasm' is not documented"),
        (GOOD_TEXT | {"tolerance": 0}, "text answer has a tolerance"),
        (GOOD_OTHER | {"answer": "Ottawa"}, "'other' question has an answer"),
        ({k: v for k, v in GOOD_NUMERIC.items() if k != "covers"}, "missing or unknown"),
    ],
)
def test_a_malformed_record_is_reported(record, problem) -> None:
    problems = row_problems(record, {"bare"})
    assert any(problem in p for p in problems), problems


def test_a_repeated_id_or_question_is_reported(rows, tags) -> None:
    problems = file_problems([*rows, rows[0]], tags)
    assert f"id {rows[0]['id']!r} appears more than once" in problems
    assert f"question {rows[0]['question']!r} appears more than once" in problems


def test_a_kind_under_its_minimum_is_reported(rows, tags) -> None:
    without_letters = [row for row in rows if row["kind"] != "letters"]
    problems = file_problems(without_letters, tags)
    assert f"letters: 0 questions, fewer than {MINIMUM_PER_KIND['letters']}" in problems
    assert "documented tag 'reverse' is never used" in problems


def test_the_readme_tag_list_is_read_from_its_own_section() -> None:
    readme = "- `early`: before the heading\n### Covers tags\n- `late`: listed\n  - `nested`: not\n"
    assert documented_tags(readme) == {"late"}
    assert documented_tags("no heading\n- `late`: listed\n") == set()
