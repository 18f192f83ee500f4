"""The one check every exact tool answers through: the whole question, one reading."""

import pytest

from engine.adapters.tools.reading import OPERATIVE, Reading, normalise, refusal, require_whole
from engine.errors import ToolRefusalError

TEXT = "a shelf holds 40 books and 9 are on loan. how many are here?"  # "on loan": not operative


def test_a_reading_that_consumed_everything_passes() -> None:
    reading = Reading("what is 40 - 9?", "40 - 9", spans=((0, 15),))
    assert refusal(reading) is None
    assert require_whole(reading) is reading


def test_an_unused_number_is_named() -> None:
    reading = Reading(TEXT, "40", spans=((0, 22),))
    assert reading.unused_numbers() == ["9"]
    assert refusal(reading) == "the number 9 was not used"


def test_a_distractor_needs_a_stated_reason_and_covers_one_occurrence() -> None:
    text = "in 2020 ann had 5 pens and found 5 more"
    read = ((8, 17), (27, 39))  # "ann had 5 pens" and "found 5 more"; not "in 2020"
    assert refusal(Reading(text, "5 + 5", spans=read)) == "the number 2020 was not used"
    shown = Reading(text, "5 + 5", spans=read, distractors=(("2020", "a year, not a count"),))
    assert refusal(shown) is None


def test_an_unread_operative_word_refuses_and_plain_words_do_not() -> None:
    text = "a shelf holds 40 books and 9 are missing. how many are here?"
    numbers = ((14, 16), (27, 28))  # both numbers read, "missing" not
    reading = Reading(text, "40 + 9", spans=numbers)
    assert reading.unused_numbers() == []
    assert refusal(reading) == "the word 'missing' changes the question but was not read"
    assert {"shelf", "books", "here"} <= set(reading.leftovers())  # plain words may stay unread
    assert refusal(Reading(text, "40 - 9", spans=((14, 40),))) is None


@pytest.mark.parametrize("word", ["each", "less", "not", "left", "gave", "half", "unique"])
def test_the_operative_words_include_what_changes_arithmetic_or_counting(word: str) -> None:
    assert word in OPERATIVE
    reading = Reading(f"7 {word} 3", "7", spans=((0, 1), (len(word) + 3, len(word) + 4)))
    assert refusal(reading) == f"the word {word!r} changes the question but was not read"


def test_two_readings_refuse() -> None:
    reading = Reading("2 + 3", "2 + 3", spans=((0, 5),), alternatives=2)
    with pytest.raises(ToolRefusalError, match="2 readings, not one"):
        require_whole(reading)


@pytest.mark.parametrize(
    ("text", "normal"),
    [
        ("Twenty-five boxes", "25 boxes"),
        ("A crowd of 12,500 people", "a crowd of 12500 people"),
        ("It costs $3.50", "it costs 3.50"),
        ("three quarters of a mile", "0.75 mile"),
        ("two thirds of 90", "2/3 of 90"),
        ("one and a half hours", "1.5 hours"),
        ("half an hour", "0.5 hour"),
    ],
)
def test_normalise_reads_number_words_fractions_and_separators(text: str, normal: str) -> None:
    assert normalise(text) == normal


def test_normalise_can_keep_small_number_words_and_case() -> None:
    assert normalise("One second in mL", small_numbers=False, lower=False) == "One second in mL"
