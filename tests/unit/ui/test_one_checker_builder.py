"""A checker built from an expected answer has one builder, `engine.checker_for` (issue 27).

The REST API, the playground and the CLI each built their own (three ways to infer a kind and to
read a date), so one expected answer could be accepted by one door and refused by another. Now
each calls the engine's builder and gets the same checker.
"""

import ast
from pathlib import Path

import pytest

from engine import ExpectedChecker, checker_for
from ui.playground.actions import expected_checker
from ui.service.schemas import DecideRequest

UI = Path(__file__).resolve().parents[3] / "ui"
# Scoring an answer against an expected one is the checker's job: ui/ calls the builder only.
SCORING = {"check_answer", "infer_kind"}


def test_ui_builds_no_checker_of_its_own() -> None:
    found = []
    for path in sorted(UI.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.ImportFrom):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.Name | ast.Attribute):
                names = [node.id if isinstance(node, ast.Name) else node.attr]
            found += [f"{path.relative_to(UI)}: {name}" for name in names if name in SCORING]
    assert found == []


@pytest.mark.parametrize(
    ("expected", "kind"),
    [
        ("42", "numeric"),
        ("Canberra", "exact"),
        ("B", "choice"),
        ("2024-03-11", "date"),
        ("March 11, 2024", "date"),  # any writing of one day, compared as ISO
        ("11th of March 2024", "date"),
    ],
)
def test_the_api_and_the_playground_build_the_engines_checker(expected: str, kind: str) -> None:
    built = checker_for(expected, kind)
    request = DecideRequest(query="q", expected_answer=expected, answer_kind=kind)
    assert request.checker() == built
    assert expected_checker(expected, kind) == (built, "")
    assert built("Answer: 11 March 2024" if kind == "date" else f"Answer: {expected}") == 1.0


@pytest.mark.parametrize(
    ("expected", "kind"),
    [("7", "numeric"), ("(c)", "choice"), ("50%", "numeric"), ("March 11, 2024", "date")],
)
def test_an_inferred_kind_is_the_engines_and_the_page_says_so(expected: str, kind: str) -> None:
    checker, note = expected_checker(expected, "")
    assert checker == ExpectedChecker(checker_for(expected).expected, kind, inferred=True)
    assert f"checked as **{kind}** (inferred" in note


@pytest.mark.parametrize(
    ("expected", "kind", "reason"),
    [
        ("soon", "date", "does not fit kind 'date'"),
        ("03/05/2024", "date", "does not fit kind 'date'"),  # two days: refused, not guessed
        ("forty-two apples", "numeric", "does not fit kind 'numeric'"),
        ("42", "number", "unknown answer kind 'number'"),
    ],
)
def test_an_expected_answer_that_does_not_fit_is_refused_alike(
    expected: str, kind: str, reason: str
) -> None:
    with pytest.raises(ValueError, match=reason):
        checker_for(expected, kind)
    with pytest.raises(ValueError, match=reason):
        expected_checker(expected, kind)
    if kind != "number":  # the API's schema refuses an unknown kind by its own Literal
        with pytest.raises(ValueError, match=reason):
            DecideRequest(query="q", expected_answer=expected, answer_kind=kind)
