"""Three classes found on tests/data/options_heldout_5.json, each case written here.

- an option's own final ";" or "," (code, a formula) is kept; only a list's separators go;
- "Is there a way to …?" asks how, not whether (`engine.domain.option_requests`);
- a question about a question: advice or a request beside the question the options answer.
"""

import pytest

from engine.domain.options import NoOptions, read_options, understand_options


def _texts(question: str) -> tuple[str, ...]:
    reading = read_options(question)
    assert reading is not None, understand_options(question)
    return reading.texts


# ---- an option keeps its own punctuation ------------------------------------------------------


def test_statements_that_all_end_in_a_semicolon_keep_it() -> None:
    question = "Which declares a constant in C?\nA) const int n = 4;\nB) int n = 4;\nC) n := 4;"
    assert _texts(question) == ("const int n = 4;", "int n = 4;", "n := 4;")


def test_bulleted_statements_that_all_end_in_a_semicolon_keep_it() -> None:
    question = "Which statement deletes every row?\nOptions:\n- DELETE FROM t;\n- DROP t;"
    assert _texts(question) == ("DELETE FROM t;", "DROP t;")


def test_commas_between_inline_options_are_the_lists() -> None:
    question = "Which is a metal? (A) copper, (B) oak, or (C) wool"
    assert _texts(question) == ("copper", "oak", "wool")


def test_semicolons_between_inline_options_are_the_lists() -> None:
    question = "Which river is longest? (A) the Nile; (B) the Thames; (C) the Seine"
    assert _texts(question) == ("the Nile", "the Thames", "the Seine")


def test_a_semicolon_inside_an_option_stays() -> None:
    question = "Which loop header is valid? (A) for (i = 0; i < n; i++) (B) for i in n"
    assert _texts(question) == ("for (i = 0; i < n; i++)", "for i in n")


def test_one_a_line_with_a_semicolon_on_some_lines_only_is_refused() -> None:
    # "x = 1;" may be a statement or "x = 1" with the list's punctuation: a guess either way.
    question = "Which assignment is valid in Python?\nA) x = 1;\nB) 1 = x;\nC) x == 1"
    reading = understand_options(question)
    assert isinstance(reading, NoOptions)
    assert "';'" in reading.reason


# ---- asking for a way is asking how -----------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "Is there a way to undo an email I already sent in Outlook?",
        "Is there a quick way to rename two hundred photos at once?",
        "Is there any way of getting a stripped screw out?",
        "Are there any simple tricks for remembering French genders?",
        "Is there a better method for proofing bread in a cold kitchen?",
        "Is there anything I can do to stop my cat scratching the sofa?",
        "Is it possible to speed up my old laptop?",
    ],
)
def test_asking_for_a_way_is_not_a_yes_no_question(question: str) -> None:
    assert isinstance(understand_options(question), NoOptions), understand_options(question)


@pytest.mark.parametrize(
    "question",
    [
        "Is there a speed limit on German motorways?",
        "Are there any penguins at the North Pole?",
        "Is there water on the Moon?",
    ],
)
def test_a_question_of_existence_stays_yes_no(question: str) -> None:
    assert _texts(question) == ("Yes", "No")


# ---- a question about a question --------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "I'm setting a pub quiz. How could I make this one harder?\n"
        "Which planet has the most moons? (A) Saturn (B) Mars (C) Venus",
        "My students found this too easy. What should we change?\n\n"
        "Which gas do plants take in?\nA. oxygen\nB. carbon dioxide\nC. helium",
        "Can you suggest a fourth distractor?\n"
        "Which ocean is largest? (A) Pacific (B) Atlantic (C) Indian",
        "Which ocean is largest?\nOptions:\n(A) Pacific\n(B) Atlantic\n"
        "How would you reword these options?",
    ],
)
def test_advice_or_a_request_beside_the_options_question_is_refused(question: str) -> None:
    reading = understand_options(question)
    assert isinstance(reading, NoOptions), reading
    assert "question" in reading.reason  # two questions, advice, or a request


def test_a_speakers_question_in_a_dialogue_is_material() -> None:
    question = (
        "Tom: How do I get to the library?\nLi: It's past the bank.\n\n"
        "What does Li mean?\n(A) the library is beyond the bank\n(B) Li does not know"
    )
    assert _texts(question) == ("the library is beyond the bank", "Li does not know")


def test_a_request_in_a_quoted_or_labelled_message_is_material() -> None:
    for message in (
        '"Hi team, the build is red again. Could you rerun the tests?"',
        "Message: Hi team, the build is red again. Could you rerun the tests?",
    ):
        question = message + "\n\nWhat does the writer want?\na) a rerun\nb) a new build server"
        assert _texts(question) == ("a rerun", "a new build server")


def test_a_request_in_an_unmarked_message_is_a_second_question() -> None:
    # Unquoted and unlabelled, the message cannot be told from the asker's own words
    # (`engine.domain.option_frame`), so its question is a second one and the text refuses.
    question = (
        "Hi team, the build is red again. Could you rerun the tests?\n\n"
        "What does the writer want?\na) a rerun\nb) a new build server"
    )
    assert isinstance(understand_options(question), NoOptions)


def test_a_question_about_how_someone_would_answer_still_reads() -> None:
    question = (
        "How would most people answer the question below?\n"
        "A kettle boils because Ana switched it on. Did Ana cause it to boil?\n"
        "Options:\n- Yes\n- No"
    )
    assert _texts(question) == ("Yes", "No")
