"""Word problems: every sentence read whole by the grammar, or the problem refused."""

import pytest

from engine.adapters.tools.calculator import Calculator
from engine.adapters.tools.word_problem import read_word_problem
from engine.errors import ToolError, ToolRefusalError
from experiments.tasks import generate_suite


@pytest.mark.parametrize(
    ("question", "expression"),
    [
        ("Ann has 4 apples and gets 3 more. How many apples does Ann have now?", "4 + 3"),
        ("Sam had 12 cards and gave away 5. How many cards are left?", "12 - 5"),
        ("There are 6 boxes with 5 pens in each box. How many pens are there?", "6 * 5"),
        (
            "Nine friends share 36 stickers equally. How many stickers does each friend get?",
            "36 / 9",
        ),
        ("Raj shares 45 nuts equally among 5 squirrels. How many nuts does each get?", "45 / 5"),
        (
            "Tom has twenty-one marbles. He loses 4 and then finds 7 more. "
            "How many marbles does he have?",
            "21 - 4 + 7",
        ),
        (
            "A hall has 2,400 chairs and 150 more arrive. How many chairs are there now?",
            "2400 + 150",
        ),
        (
            "There were 19 birds on a roof. Then 6 flew away. How many birds are on the roof now?",
            "19 - 6",
        ),
        (
            "A farm has 9 pens and each pen holds 12 goats. How many goats can the farm hold?",
            "9 * 12",
        ),
        ("Eva knits 3 scarves a week. How many scarves does she knit in 4 weeks?", "3 * 4"),
        ("A pump moves 30 litres per minute. How many litres does it move in an hour?", "30 * 60"),
        ("Stamps cost 65 cents each. How much do 4 stamps cost?", "65 * 4"),
        ("Omar paid 42 dollars for 6 books. How much did each book cost?", "42 / 6"),
        ("Ruth earns 11 dollars an hour and works 7 hours. How much does Ruth earn?", "11 * 7"),
    ],
)
def test_plain_word_problems_become_expressions(question: str, expression: str) -> None:
    assert read_word_problem(question).understood == expression


@pytest.mark.parametrize(
    ("question", "why"),
    [
        # A number hidden in a slot: "to each of her 4 cousins" is not read, so 4 is unused.
        (
            "Ivy had 60 beads. She gave 5 to each of her 4 cousins. "
            "How many beads does she have left?",
            "cannot read",
        ),
        # A clause the grammar has no form for ("are broken").
        ("A box has 24 eggs and 5 are broken. How many are whole?", "cannot read"),
        # The question is about someone the story never counted.
        ("Ken has 8 pens. How many pens does his brother have?", "not the story's subject"),
        # Two counts: which one is asked is not the grammar's to guess.
        ("Joe has 12 cards. Max has 5 cards. How many cards does Joe have?", "second count"),
        # A rate asked over a span that is not a whole number of its unit (a month in days).
        ("Kai saves 2 dollars a day. How much will he save in a month?", "whole number"),
        # A rate asked about another action.
        ("Lea reads 20 pages a day. How many pages does she write in a week?", "another action"),
        ("What comes next: 2, 4, 6, 8?", "cannot read"),
        ("How many letters are in 'banana'?", "never started"),
    ],
)
def test_what_it_cannot_read_whole_is_refused(question: str, why: str) -> None:
    with pytest.raises(ToolRefusalError, match=why):
        read_word_problem(question)


def test_the_calculator_answers_a_word_problem_with_its_provenance() -> None:
    answer = Calculator().run("Ann has 4 apples and gets 3 more. How many apples does she have?")
    assert (answer.value, answer.fully_parsed) == ("7", True)
    assert answer.provenance == "parsed the whole question and computed 4 + 3 = 7"
    with pytest.raises(ToolRefusalError, match="as a word problem"):
        Calculator().run("Who wrote Hamlet?")


def test_a_story_that_takes_away_more_than_there_was_is_refused() -> None:
    with pytest.raises(ToolRefusalError, match="more than there was"):
        Calculator().run("Ada had 3 shells and lost 5. How many shells does she have?")


def test_whatever_it_answers_on_the_replay_suite_is_right() -> None:
    # The replay suite's templated arithmetic: a refusal is allowed, a wrong answer is not.
    suite = generate_suite(seed=11, per_family=40, families=["arithmetic"])
    answered, wrong = 0, []
    for task in suite.tasks:
        try:
            value = Calculator().run(task.query).value
        except ToolError:
            continue
        answered += 1
        if value != task.expected:
            wrong.append(task.query)
    assert wrong == []
    assert answered >= len(suite.tasks) // 2
