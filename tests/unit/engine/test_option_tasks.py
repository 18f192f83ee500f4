"""Four structural rules drawn from tests/data/options_heldout_6.json, each case written here.

- a task set on the item ("Translate this question …: Which …? (A) …") is not the options'
  question (`engine.domain.option_frame`: an instruction whose verb is not one of answering);
- "the word itself, not the number" sets the text as the answer, whatever marks the list;
- every item of "X, Y, or Z" is kept, or the question is refused;
- "Is there a <thing> that/to/for …?" asks for the thing, not whether it exists.
"""

import pytest

from engine.domain.option_frame import frame_problem
from engine.domain.options import NoOptions, read_options, understand_options

# ---- a task on the item -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "Shorten the options of this quiz question so none is over three words:\n"
        "Which gas do plants take in?\n(A) oxygen from the air (B) carbon dioxide (C) nitrogen",
        "Translate the following question into German: Which planet is red? (A) Mars (B) Venus",
        "Explain why each distractor is plausible: Which is a mammal? (A) shark (B) whale",
        "Convert this item into a cloze.\nWhich city is in Peru?\nA) Lima\nB) Quito",
        "Critique this exam question: Which year did the war end? (a) 1918 (b) 1945 (c) 1939",
        "Are these options in a sensible order, and why? Which is biggest? (a) 3 (b) 30 (c) 300",
        "Rewrite it in plain English:\nWhich is a prime?\n1. 4\n2. 7\n3. 9",
        "Translate into Spanish:\nIs the shop open on Sundays?",
        # An explanation asked beside the choice is more than an option answers.
        "Which planet is red? (A) Mars (B) Venus\nExplain your answer.",
    ],
)
def test_a_task_set_on_the_item_is_refused(question: str) -> None:
    reading = understand_options(question)
    assert isinstance(reading, NoOptions)
    assert any(word in reading.reason for word in ("text", "item", "question", "answer"))


@pytest.mark.parametrize(
    ("question", "texts"),
    [
        (
            "Answer the following question. Which planet is red? (A) Mars (B) Venus",
            ("Mars", "Venus"),
        ),
        ("Which of these options is a mammal? (A) shark (B) whale", ("shark", "whale")),
        (
            "Assess the claim and answer yes or no: a square is a rhombus.",
            ("Yes", "No"),
        ),
        (
            "If you follow these steps, are you back at the start? Step 3 times. Turn right. "
            "Step 3 times. Answer yes or no.",
            ("Yes", "No"),
        ),
    ],
)
def test_an_instruction_that_asks_the_item_keeps_its_options(
    question: str, texts: tuple[str, ...]
) -> None:
    reading = read_options(question)
    assert reading is not None, understand_options(question)
    assert reading.texts == texts


def test_a_label_is_no_task() -> None:
    assert frame_problem('Review: "Great value."\nSentiment?', "", needs_request=True) is None


def test_a_question_on_how_the_item_is_answered_is_no_task() -> None:
    framing = "How would most people answer this question?"
    assert frame_problem(framing, "", needs_request=True) is None


# ---- the word itself, not the number ----------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "Choose the right plural and write the word itself, not the number: 1. mouses 2. mice",
        "Select the capital and give the name itself, not the numeral:\ni. Paris\nii. Lyon",
        "Which is spelled right? Answer with the text itself rather than the letter. "
        "(a) mice (b) mouses",
    ],
)
def test_the_word_itself_sets_the_form_for_every_list_style(question: str) -> None:
    reading = read_options(question)
    assert reading is not None, understand_options(question)
    assert (reading.form, reading.letters) == ("word", ())


def test_a_numbered_list_without_an_instruction_is_answered_by_its_number() -> None:
    reading = read_options("Which is spelled right? 1. mice 2. mouses")
    assert reading is not None
    assert (reading.form, reading.letters) == ("letter", ("1", "2"))


# ---- every item of a comma list ---------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "Is the answer correct, partly correct, or not correct?",
        "Is the claim supported, weakly supported, or unsupported?",
    ],
)
def test_a_list_split_inside_an_item_is_refused(question: str) -> None:
    assert read_options(question) is None


def test_a_list_of_alike_items_is_read_whole() -> None:
    reading = read_options("Is the tone formal, casual, or neutral?")
    assert reading is not None
    assert reading.texts == ("formal", "casual", "neutral")


# ---- "is there a <thing> that …?" asks for the thing ------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "Is there a setting that stops my phone dimming the screen?",
        "Is there an app for splitting a restaurant bill?",
        "Are there any libraries which parse dates in Python?",
        "Is there a shortcut key to lock a Windows laptop?",
        "Is there a function that reverses a string in JavaScript?",
    ],
)
def test_a_thing_asked_for_with_is_there_is_refused(question: str) -> None:
    assert read_options(question) is None


@pytest.mark.parametrize(
    "question",
    [
        "Is there any chance of frost in Lisbon in April?",
        "Is there a lot of caffeine in green tea?",
        "Is there any evidence that garlic cures colds?",
        "Are there more than eight planets?",
        "Is there life on Europa?",
    ],
)
def test_existence_and_quantity_stay_yes_or_no(question: str) -> None:
    reading = read_options(question)
    assert reading is not None, understand_options(question)
    assert reading.texts == ("Yes", "No")
