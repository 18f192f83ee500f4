"""The option reader refuses in the three families that held-out sets keep finding wrong readings
in: where the last option ends, the form the answer takes, and yes/no read on requests and on
compound questions. The classes come from tests/data/options_heldout_4.json; each case is
written here, not copied from that set.
"""

import pytest

from engine.domain.option_forms import answer_form
from engine.domain.options import NoOptions, Options, read_options, understand_options


def _refused(question: str) -> bool:
    return isinstance(understand_options(question), NoOptions)


# ---- where the last option ends ---------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "Which river is longest? (A) Nile (B) Amazon (C) Yangtze – answer with A, B or C.",
        "Which river is longest? (A) Nile (B) Amazon (C) Yangtze; give the letter only.",
        "Which river is longest? (A) Nile (B) Amazon (C) Yangtze - just reply with one letter.",
        "Which river is longest? (A) Nile (B) Amazon (C) Yangtze. Respond with the option letter.",
    ],
)
def test_an_answer_instruction_after_the_last_option_is_cut_off(question: str) -> None:
    reading = read_options(question)
    assert reading is not None, understand_options(question)
    assert (reading.texts, reading.form) == (("Nile", "Amazon", "Yangtze"), "letter")
    assert reading.letters == ("A", "B", "C")


@pytest.mark.parametrize(
    "question",
    [
        # A clause after a dash or semicolon that is not about the answer: where does C end?
        "Which river is longest? (A) Nile (B) Amazon (C) Yangtze — the one in China",
        "Which river is longest? (A) Nile (B) Amazon (C) Yangtze; think it through",
        # An instruction that is not about the answer stays in the option, which runs on.
        "Which river is longest? (A) Nile (B) Amazon (C) Yangtze. Explain your reasoning.",
        "Which river is longest? (A) Nile (B) Amazon (C) Yangtze — write a short essay on it",
    ],
)
def test_a_last_option_that_may_run_on_is_refused(question: str) -> None:
    assert _refused(question), understand_options(question)


def test_dashes_that_every_option_holds_belong_to_the_options() -> None:
    reading = read_options(
        "Which pairing is right?\n(A) Paris - France\n(B) Rome - Spain\n(C) Oslo - Chile"
    )
    assert reading is not None
    assert reading.texts == ("Paris - France", "Rome - Spain", "Oslo - Chile")


# ---- the form the answer takes ----------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "Which gas do plants absorb?\nA. Oxygen\nB. Carbon dioxide\nC. Nitrogen\n"
        "Answer with the name of the gas rather than its letter.",
        "Which gas do plants absorb? (A) Oxygen (B) Carbon dioxide (C) Nitrogen — please spell "
        "the answer out in full, not the letter.",
        "Which gas do plants absorb?\n(A) Oxygen\n(B) Carbon dioxide\n(C) Nitrogen\n"
        "Write your answer in words instead of the letter.",
        "Reply with the full name, not the letter. Which gas do plants absorb?\n"
        "(A) Oxygen\n(B) Carbon dioxide\n(C) Nitrogen",
    ],
)
def test_an_instruction_for_the_text_makes_the_form_word(question: str) -> None:
    reading = read_options(question)
    assert reading is not None, understand_options(question)
    assert reading.form == "word"
    assert (reading.texts, reading.letters) == (("Oxygen", "Carbon dioxide", "Nitrogen"), ())


@pytest.mark.parametrize(
    "question",
    [
        "Which gas do plants absorb?\nA. Oxygen\nB. Carbon dioxide\nC. Nitrogen\n"
        "Give the letter and the name of the gas.",
        "Which gas do plants absorb?\nA. Oxygen\nB. Carbon dioxide\nC. Nitrogen\n"
        "Reply with the letter, not just the name.",
        "Which gas do plants absorb?\nA. Oxygen\nB. Carbon dioxide\nC. Nitrogen\n"
        "Write out the full name as well as the letter.",
        # "the number" is the label or the option itself when the options are numbers.
        "Which of these is prime?\n1. 4\n2. 7\n3. 9\nReply with the number.",
    ],
)
def test_an_unclear_or_conflicting_form_instruction_is_refused(question: str) -> None:
    assert _refused(question), understand_options(question)


@pytest.mark.parametrize(
    ("text", "form"),
    [
        ("Which is it? Answer with the letter only.", "letter"),
        ("Which is it? Respond with the number of your choice.", "letter"),
        ("Which is it?", "letter"),
        # A question that mentions a name or a word asks about the options, not the form.
        ("Which is the name of the largest planet?", "letter"),
        ("Choose the word that is spelled correctly:", "letter"),
        ("Which is it? Write the colour out in full.", "word"),
        ("Which is it? Give the answer text, not the label.", "word"),
    ],
)
def test_only_instructions_set_the_form(text: str, form: str) -> None:
    assert answer_form(text, ("red", "blue")) == form


# ---- yes/no only for one clause that asks whether -----------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "Has the package shipped yet, and if not, why?",
        "Was the flight delayed — if yes, by how much?",
        "Did the price go up, and if so by how much?",
        "Is the pharmacy open on Sunday, and what time does it close?",
        "Is the clinic open on Monday, and can I bring my dog?",
        "Is the shop open today, or is it a holiday?",
        "Is the report ready, and please send it over?",
        "Is the museum free, and tell me where to park?",
        "Is the train late, and until when?",
        "Is it cold in Oslo in May, and should I pack a coat?",
    ],
)
def test_a_yes_no_question_joined_to_another_clause_that_asks_is_refused(question: str) -> None:
    assert _refused(question), understand_options(question)


@pytest.mark.parametrize(
    "question",
    [
        "Is Paris the capital of France?",
        "Under the new rules, may a pharmacist sell this without a prescription?",
        "Would a 3 m ladder reach the gutter if it leans at 70 degrees?",
        "Did the team that won in 2010 also win in 2014?",
    ],
)
def test_a_single_clause_yes_no_question_is_still_read(question: str) -> None:
    reading = read_options(question)
    assert reading is not None, understand_options(question)
    assert (reading.texts, reading.form) == (("Yes", "No"), "word")


# ---- requests to act on the asker's things -----------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "Would it be possible to move my appointment to Thursday morning?",
        "Is it possible to cancel my subscription online?",
        "Would it be possible to change the booking to two people?",
        "Could we reschedule our delivery for Friday?",
        "Can I upgrade my seat on this flight?",
        "Is there any way to refund the second ticket to our card?",
    ],
)
def test_a_possibility_of_arranging_the_askers_affairs_is_a_request(question: str) -> None:
    assert _refused(question), understand_options(question)


@pytest.mark.parametrize(
    "question",
    [
        "Can I return an unopened item after 20 days?",
        "Could a rocket move faster than light?",
        "Would it be possible to travel to Mars in a month?",
    ],
)
def test_whether_an_act_is_possible_or_allowed_stays_yes_no(question: str) -> None:
    reading = read_options(question)
    assert isinstance(reading, Options), understand_options(question)
    assert reading.texts == ("Yes", "No")


# ---- recall added where no set loses precision ------------------------------------------------


@pytest.mark.parametrize(
    ("question", "letters"),
    [
        ("Which is a noble gas?\ni. Argon\nii. Iron\niii. Sodium", ("i", "ii", "iii")),
        ("Which is a noble gas? (i) Argon (ii) Iron (iii) Sodium", ("i", "ii", "iii")),
        ("Which is a noble gas?\nI) Argon\nII) Iron\nIII) Sodium", ("I", "II", "III")),
    ],
)
def test_options_numbered_in_roman_numerals_are_read(
    question: str, letters: tuple[str, ...]
) -> None:
    reading = read_options(question)
    assert reading is not None, understand_options(question)
    assert (reading.texts, reading.letters) == (("Argon", "Iron", "Sodium"), letters)


def test_roman_numerals_out_of_order_are_refused() -> None:
    assert _refused("Which is a noble gas?\ni. Argon\nii. Iron\niv. Sodium")


@pytest.mark.parametrize(
    ("question", "texts"),
    [
        ("Is it affect or effect in 'Noise can ___ sleep'?", ("affect", "effect")),
        ('Is it "their" or "there" in "___ car is red"?', ("their", "there")),
        ("Is it your or you're in 'I think ___ right'?", ("your", "you're")),
    ],
)
def test_two_words_for_a_quoted_blank_are_alternatives(
    question: str, texts: tuple[str, ...]
) -> None:
    reading = read_options(question)
    assert reading is not None, understand_options(question)
    assert (reading.texts, reading.form) == (texts, "word")


def test_two_words_without_a_blank_are_not_read_as_a_blank_filler() -> None:
    reading = understand_options("Is it hot or cold in 'Summer in Seville'?")
    assert not (isinstance(reading, Options) and "blank" in reading.understood)
