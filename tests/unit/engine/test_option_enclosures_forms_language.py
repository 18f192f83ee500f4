"""Lists in brackets, answer-form instructions that name the text, and questions not in English."""

import pytest

from engine.domain.option_forms import answer_form
from engine.domain.options import NoOptions, Options, understand_options


@pytest.mark.parametrize(
    "question",
    [
        'Tag the request. Choices: {refund, exchange, other}\nRequest: "it arrived broken"',
        "Pick one: (walk, cycle, drive). Which is greenest for 2 km?",
        'Options: <approve, reject>\nClaim: "taxi, $18, client visit"',
    ],
)
def test_a_list_in_one_pair_of_brackets_loses_them(question: str) -> None:
    reading = understand_options(question)
    assert isinstance(reading, Options)
    assert not any(mark in "".join(reading.texts) for mark in "[](){}<>")


def test_half_a_pair_of_brackets_refuses() -> None:
    reading = understand_options('Labels: [urgent, normal, low\nEmail: "server down"')
    assert isinstance(reading, NoOptions)


@pytest.mark.parametrize(
    ("instruction", "form"),
    [
        ("Type the planet.", "word"),
        ("Give the animal's name.", "word"),
        ("Respond with the option text.", "word"),
        ("Answer with the best option.", "letter"),
        ("Reply with the number.", "letter"),
        ("Answer the question.", "letter"),
    ],
)
def test_an_instruction_that_names_a_thing_asks_for_the_text(instruction: str, form: str) -> None:
    assert answer_form(f"Which one is it?\n1. Mars\n2. Venus\n{instruction}", ()) == form


@pytest.mark.parametrize("instruction", ["Answer in French.", "Say why.", "Write how you know."])
def test_an_instruction_of_manner_is_not_understood(instruction: str) -> None:
    assert answer_form(f"Which one is it? {instruction}", ()) not in ("letter", "word")


@pytest.mark.parametrize(
    "question",
    [
        "Was ist der Unterschied zwischen „gern“ und „lieber“?",
        "Ist das Gemüse frisch oder gefroren?",
        "¿Es más grande Madrid o Sevilla?",
        "Est-ce que la réunion est à midi ?",
        "Is de trein vertraagd, ja of nee? «dringend»",
    ],
)
def test_grammar_readings_refuse_text_not_in_english(question: str) -> None:
    assert isinstance(understand_options(question), NoOptions)


def test_lettered_options_read_in_any_language() -> None:
    reading = understand_options(
        "Welche Stadt ist die Hauptstadt von Österreich?\nA) Wien\nB) Graz"
    )
    assert isinstance(reading, Options)
    assert reading.letters == ("A", "B")


def test_options_and_quoted_words_may_be_foreign() -> None:
    assert isinstance(understand_options("Which is milder, a jalapeño or a poblano?"), Options)
    assert isinstance(understand_options('Is "Fräulein" a German word?'), Options)
