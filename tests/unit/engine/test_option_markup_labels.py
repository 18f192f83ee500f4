"""Three classes of wrong reading from tests/data/options_heldout_9.json, in new phrasings.

- markdown around a label ("- **A:** …") shows the label; markup left in an option refuses;
- a wh-word anywhere before the auxiliary ("Roughly how long, …, does …?") asks no yes/no;
- labels named in an instruction with no options written ("Reply with A, B or C: …") or an
  instruction's verb in the first alternative refuse.
"""

import pytest

from engine.domain.option_markup import holds_markup, plain_labels
from engine.domain.options import NoOptions, read_options, understand_options


@pytest.mark.parametrize(
    "question",
    [
        "Which metal conducts heat best?\n- **A:** copper\n- **B:** steel",
        "Which metal conducts heat best?\n* *a)* copper\n* *b)* steel",
        "Which metal conducts heat best?\n**1.** copper\n**2.** steel",
        "Which metal conducts heat best?\n- **(A)** copper\n- **(B)** steel",
        "Which metal conducts heat best?\n__A__: copper\n__B__: steel",
    ],
)
def test_emphasis_around_a_label_is_the_label(question: str) -> None:
    options = read_options(question)
    assert options is not None
    assert options.form == "letter"
    assert options.texts == ("copper", "steel")


@pytest.mark.parametrize(
    "question",
    [
        "Which metal conducts heat best?\n- __A__ copper\n- __B__ steel",
        "Which metal conducts heat best?\n- **A** copper\n- **B** steel",
        "Which word is stressed?\n- **loud**\n- quiet",
    ],
)
def test_markup_left_in_an_option_refuses(question: str) -> None:
    reading = understand_options(question)
    assert isinstance(reading, NoOptions)
    assert "markdown" in reading.reason


def test_markup_is_told_from_ordinary_characters() -> None:
    assert plain_labels("Pick:\n- **B.** pears") == "Pick:\nB. pears"
    assert not holds_markup(("snake_case", "2 * 3", "A*"))
    assert holds_markup(("*A)* copper",))


@pytest.mark.parametrize(
    "question",
    [
        "Approximately how far, give or take, is the Moon from Earth?",
        "Just how many, all told, are there in a dozen?",
        "So what, in plain terms, is inflation?",
        "Honestly, how hot does a kiln get?",
        "In your view, why is the sky blue?",
    ],
)
def test_a_wh_word_before_the_auxiliary_is_no_yes_no_question(question: str) -> None:
    reading = read_options(question)
    assert reading is None or reading.texts != ("Yes", "No")


@pytest.mark.parametrize("question", ["Tell me, is 91 prime?", "If x = 3, is x > 2?"])
def test_a_yes_no_question_after_a_lead_in_is_still_read(question: str) -> None:
    options = read_options(question)
    assert options is not None
    assert options.texts == ("Yes", "No")


@pytest.mark.parametrize(
    "question",
    [
        "Reply with A, B or C: which gas do plants absorb?",
        "Choose a, b, c or d: which planet is the hottest?",
        "Say yes, no or maybe: will it rain tomorrow?",
        "Pick one: A, B, C or D. Which bone is the longest?",
        "Options: (a), (b), (c). Which is right?",
    ],
)
def test_labels_named_in_an_instruction_refuse(question: str) -> None:
    assert isinstance(understand_options(question), NoOptions)


@pytest.mark.parametrize(
    ("question", "texts"),
    [
        ("Which is more common in English, the letter e or the letter t?", ("the letter e",)),
        ("Which is larger, 2 or 3?", ("2", "3")),
    ],
)
def test_labels_inside_a_phrase_and_numbers_are_options(
    question: str, texts: tuple[str, ...]
) -> None:
    options = read_options(question)
    assert options is not None
    assert options.texts[: len(texts)] == texts
