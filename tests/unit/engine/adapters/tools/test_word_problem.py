"""Word problems: the calculator reads plain English arithmetic, and refuses what it cannot read."""

import pytest

from engine.adapters.tools.calculator import Calculator
from engine.adapters.tools.word_problem import word_problem_expression
from engine.errors import ToolError
from experiments.tasks import generate_suite


@pytest.mark.parametrize(
    ("question", "expression"),
    [
        ("Ann has 4 apples and gets 3 more. How many apples does Ann have now?", "4 + 3"),
        ("Sam had 12 cards and gave away 5. How many cards are left?", "12 - 5"),
        ("There are 6 boxes with 5 pens in each box. How many pens are there?", "6 * 5"),
        ("Add 11 and 4.", "11 + 4"),
        ("What is the sum of 8 and 9?", "8 + 9"),
        ("Take 3 away from 20. What is left?", "20 - 3"),
        ("Subtract 7 from 15.", "15 - 7"),
        ("What is the difference between 30 and 12?", "30 - 12"),
        ("What is the product of 6 and 7?", "6 * 7"),
        ("Divide 36 sweets among 4 children.", "36 / 4"),
        ("Nine friends share 36 stickers equally. How many does each get?", "36 / 9"),
        ("Tom has twenty-one marbles. He loses 4 and then finds 7 more.", "21 - 4 + 7"),
        ("Mia bought three dozen eggs and used 5. How many are left?", "36 - 5"),
        ("A shop sells 8 packs of 6 cans, then 4 more cans. How many cans?", "(8 * 6) + 4"),
        ("Lena had 20 dollars, spent 5, then earned 8. How much now?", "20 - 5 + 8"),
    ],
)
def test_plain_word_problems_become_expressions(question: str, expression: str) -> None:
    assert word_problem_expression(question) == expression


@pytest.mark.parametrize(
    "question",
    [
        "What comes next: 2, 4, 6, 8?",  # numbers with no operation between them
        "Convert 7 kilometres to metres.",  # one number
        "How many letters are in 'banana'?",  # none
        "Which one of them is taller?",  # "one" is not an operand
        "Tom has 5 cards, 3 each shared.",  # two different operations cued for 3
    ],
)
def test_what_it_cannot_read_is_refused(question: str) -> None:
    with pytest.raises(ToolError):
        word_problem_expression(question)


def test_the_calculator_answers_a_word_problem_and_keeps_its_own_error_otherwise() -> None:
    assert Calculator().run("Ann has 4 apples and gets 3 more.") == "4 + 3 = 7"
    assert Calculator().run("What is 12 * (3 + 4)?") == "12 * (3 + 4) = 84"
    with pytest.raises(ToolError, match="no arithmetic expression found"):
        Calculator().run("Who wrote Hamlet?")


def test_every_arithmetic_task_of_the_replay_suite_is_read_right() -> None:
    # The replay suite is the split the reader was written against (never the held-out one).
    suite = generate_suite(seed=11, per_family=40, families=["arithmetic"])
    wrong = [
        task.query
        for task in suite.tasks
        if Calculator().run(task.query).rsplit("= ", 1)[-1] != task.expected
    ]
    assert wrong == []
