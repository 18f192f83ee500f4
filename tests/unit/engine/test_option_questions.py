"""The classes of mistake and miss found on tests/data/options_heldout_2.json and _3, one each.

Each case is written here, not copied from those sets. The readers live in
`engine.domain.option_questions` (yes/no, alternatives), `option_blocks` and `option_lists`;
`read_options` is the one entry they are tested through.
"""

import pytest

from engine.domain.options import NoOptions, read_options, understand_options


def texts_of(question: str) -> tuple[str, ...]:
    options = read_options(question)
    assert options is not None, understand_options(question)
    assert options.form == "word"
    return options.texts


# A dash or a colon ends the wh-clause as a comma does; the list after it is whole.
@pytest.mark.parametrize(
    ("question", "texts"),
    [
        (
            "Which is the largest ocean – Atlantic, Indian or Pacific?",
            ("Atlantic", "Indian", "Pacific"),
        ),
        ("Who painted it - Monet, Manet or Degas?", ("Monet", "Manet", "Degas")),
        ("Which metal is heavier — lead or tin?", ("lead", "tin")),
    ],
)
def test_a_dash_ends_the_wh_clause(question: str, texts: tuple[str, ...]) -> None:
    assert texts_of(question) == texts


# A list in brackets after a short label is the answer space; its brackets are no option's.
@pytest.mark.parametrize(
    ("question", "texts"),
    [
        ('Email: "Refund me now."\nUrgency (low, medium or high)?', ("low", "medium", "high")),
        ("Note: the printer jams daily.\nTeam (IT / Facilities / HR):", ("IT", "Facilities", "HR")),
        ('Tone (friendly/hostile): "Get lost."', ("friendly", "hostile")),
    ],
)
def test_a_bracketed_list_after_a_label_is_the_options(
    question: str, texts: tuple[str, ...]
) -> None:
    assert texts_of(question) == texts


@pytest.mark.parametrize(
    "question",
    [
        "Mood (happy, sad or angry)?",  # nothing to choose for
        "Name (first/last): Jane Doe",  # a form's field, not a question
        "What is its length (in metres or feet)?",  # an aside in a question
    ],
)
def test_brackets_that_are_no_answer_space_are_refused(question: str) -> None:
    assert read_options(question) is None, read_options(question)


# A count over the options, or several of them, is not one choice.
@pytest.mark.parametrize(
    "question",
    [
        "How many of the following are even? (A) 2 (B) 3 (C) 4",
        "Which of these are vowels?\nA. e\nB. k\nC. o",
        "Select all that apply: which are planets? (a) Mars (b) Moon (c) Venus",
        "Tick all the mammals:\n- whale\n- shark\n- bat",
        "Which ones are rivers: Nile, Rhine or Everest?",
    ],
)
def test_a_question_for_several_options_is_refused(question: str) -> None:
    reading = understand_options(question)
    assert isinstance(reading, NoOptions), reading


def test_which_pair_is_still_one_choice() -> None:
    options = read_options("Which of the following pairs are twins? (A) 3, 5 (B) 4, 9")
    assert options is not None, understand_options("Which of the following pairs are twins?")
    assert options.texts == ("3, 5", "4, 9")


# "Options" in a line that is no short header asks for nothing; a list followed by another
# instruction is material for that instruction.
@pytest.mark.parametrize(
    "question",
    [
        "Options the board weighed:\n1. sell the depot\n2. lease it\nDraft a memo on them.",
        "Options:\nA. walk\nB. cycle\nSummarise the pros and cons of each.",
    ],
)
def test_a_list_for_another_task_is_not_a_choice(question: str) -> None:
    reading = understand_options(question)
    assert isinstance(reading, NoOptions), reading


def test_an_answer_instruction_after_a_list_keeps_it_a_choice() -> None:
    options = read_options("Options:\nA. walk\nB. cycle\nAnswer with the letter.")
    assert options is not None
    assert options.letters == ("A", "B")


# Requests and two questions in one, shaped like a yes/no question: "yes" answers none of them.
@pytest.mark.parametrize(
    "question",
    [
        "Is it possible that you could proofread my letter?",
        "Would it be OK if you can send me the slides?",
        "Do you think someone could fix my bike?",
        "Does somebody have a spare HDMI cable?",
        "Has anyone got a good recipe for flapjacks?",
        "Does anybody here recommend a cheap gym?",
        "Is 49 a square, and what is its root?",
        "Was the train late and why did nobody tell us?",
        "Is it legal here, or where can I check?",
        "Can't you just tell me the answer?",
    ],
)
def test_requests_and_double_questions_are_not_yes_no(question: str) -> None:
    reading = understand_options(question)
    assert isinstance(reading, NoOptions), reading


@pytest.mark.parametrize(
    "question",
    ["Has anyone climbed K2 in winter?", "Isn't 27 a cube?", "Doesn't ice float?"],
)
def test_whether_and_negative_questions_stay_yes_no(question: str) -> None:
    assert texts_of(question) == ("Yes", "No")


# "Is <subject> X or Y?": the alternatives, when a short subject and alike alternatives account
# for every word. Safe because a split is taken only when exactly one fits; "Is it red or blue?"
# asks which, and was refused only to keep "or" out of yes/no questions.
@pytest.mark.parametrize(
    ("question", "texts"),
    [
        ("Is it red or blue?", ("red", "blue")),
        ("Is a whale a fish or a mammal?", ("a fish", "a mammal")),
        ("Is Pluto a planet or a dwarf planet?", ("a planet", "a dwarf planet")),
        ("Is the number 15 odd, even or neither?", ("odd", "even", "neither")),
        ("Is the mood of this poem hopeful or bleak?", ("hopeful", "bleak")),
        ('Is this tweet spam or not spam? "Free phones!!!"', ("spam", "not spam")),
        ("Are these figures exact or rounded?", ("exact", "rounded")),
    ],
)
def test_alternatives_put_to_a_subject(question: str, texts: tuple[str, ...]) -> None:
    assert texts_of(question) == texts


@pytest.mark.parametrize(
    "question",
    [
        "Is it red or dark blue?",  # "it red" | "dark blue" or "it" | "red", "dark blue": unlike
        "Is it OK to mix vinegar or lemon?",  # no short subject
        "Is the bank open on Monday or Tuesday?",
        "Is there tea or coffee?",  # "there" is no subject
        "Are you a student or a teacher?",  # put to the reader
        "Is 91 prime or composite, and why?",  # two questions
    ],
)
def test_alternatives_without_one_clear_subject_are_refused(question: str) -> None:
    assert read_options(question) is None, read_options(question)


# Short names of the two-way answer spaces, and instructions after an inline list.
@pytest.mark.parametrize(
    ("question", "texts"),
    [
        ("Can a penguin fly? y/n", ("Yes", "No")),
        ("Is 64 a cube? Reply Y or N.", ("Yes", "No")),
        ("T/F: Venus is hotter than Mercury.", ("True", "False")),
        ("Claim: glass is a liquid. (T/F)", ("True", "False")),
    ],
)
def test_short_named_answer_spaces(question: str, texts: tuple[str, ...]) -> None:
    assert texts_of(question) == texts


def test_an_answer_instruction_ends_the_last_inline_option() -> None:
    options = read_options("Which is a prime? (A) 21 (B) 23. Answer with one letter.")
    assert options is not None, understand_options("Which is a prime? (A) 21 (B) 23.")
    assert options.texts == ("21", "23")


# Options on their own lines: marked "A - …", or bulleted after a question that asks to choose.
def test_dash_marked_options_one_per_line() -> None:
    options = read_options("Which is a conifer?\nA - oak\nB - pine\nC - ash")
    assert options is not None, understand_options("Which is a conifer?\nA - oak")
    assert (options.texts, options.letters) == (("oak", "pine", "ash"), ("A", "B", "C"))
    assert read_options("A - B = 3\nB - C = 1\nWhat is A - C?") is None


@pytest.mark.parametrize(
    ("question", "texts"),
    [
        ("Which of these is a citrus fruit?\n- lime\n- plum\n- fig", ("lime", "plum", "fig")),
        ("Pick the warmest month in Sydney:\n• January\n• July", ("January", "July")),
    ],
)
def test_bullets_after_a_question_that_asks_to_choose(
    question: str, texts: tuple[str, ...]
) -> None:
    assert texts_of(question) == texts


# The set a wh-question picks from, named before it or after a superlative.
@pytest.mark.parametrize(
    ("question", "texts"),
    [
        ("Among Oslo, Rome and Cairo, which is furthest north?", ("Oslo", "Rome", "Cairo")),
        ("Out of copper, zinc and tin, which melts first?", ("copper", "zinc", "tin")),
        ("Who is the oldest of Ann, Ben and Cat?", ("Ann", "Ben", "Cat")),
    ],
)
def test_the_set_a_wh_question_picks_from(question: str, texts: tuple[str, ...]) -> None:
    assert texts_of(question) == texts


@pytest.mark.parametrize(
    "question",
    [
        "Which is the capital of Peru, Chile and Bolivia?",  # something of each
        "Among my friends, family and colleagues, who is kindest?",  # unlike members
        "Among Oslo and Rome, which is older?",  # two: prose as often as a set
    ],
)
def test_sets_that_are_not_alike_members_are_refused(question: str) -> None:
    assert read_options(question) is None, read_options(question)


# An instruction that uses every item (rank, sort, order, compare, rate each) asks for an order
# or a judgement of all, not one option, even where a word such as "best" stands in it.
@pytest.mark.parametrize(
    "question",
    [
        "Rank the following from best to worst: (a) pizza (b) sushi (c) tacos",
        "Could you order these by which is cheapest? (A) bus (B) taxi (C) train",
        "Sort the correct answers below by length:\nA. seven\nB. six\nC. twelve",
        "Put the best three in order of size: (a) Mars (b) Earth (c) Venus",
        "Compare the following and pick out the strengths of each: (A) Python (B) Rust",
        "Please rate each of these best-sellers: (a) Dune (b) Emma",
    ],
)
def test_a_task_over_every_option_is_refused(question: str) -> None:
    reading = understand_options(question)
    assert isinstance(reading, NoOptions), reading


def test_a_task_beside_the_question_refuses() -> None:
    # "Compare" is no verb of answering: the frame (`engine.domain.option_frame`) refuses any
    # instruction that is not to answer, rather than guess that the question after it is all.
    assert (
        read_options("Compare the two plans. Which costs less? (A) plan one (B) plan two") is None
    )
    options = read_options("Read the two plans. Which costs less? (A) plan one (B) plan two")
    assert options is not None
    assert options.texts == ("plan one", "plan two")


# "whether X or Y" and "either X or Y" qualify the question; they list nothing to choose from.
@pytest.mark.parametrize(
    "question",
    [
        "Which route is quickest to the stadium, whether on foot or by bike?",
        "What should I pack for Iceland, whether in summer or in winter?",
        "Which is the better buy, either new or used?",
        "Either way, tea or coffee?",
    ],
)
def test_whether_or_either_with_or_offers_no_alternatives(question: str) -> None:
    reading = understand_options(question)
    assert isinstance(reading, NoOptions), reading


# Found on options_heldout_3.json: a label and its negation, truth asked in the last clause,
# quoted material under a short label, a question pointing back at the list, a "/" list.
@pytest.mark.parametrize(
    ("question", "texts"),
    [
        ('Sarcastic or not sarcastic? "Oh great, another Monday."', ("Sarcastic", "not sarcastic")),
        (
            "Claim: cats have nine lives. Taken literally, is the claim true or false?",
            ("True", "False"),
        ),
        ('Can I bring a dog? Rules: "Pets are welcome on a lead."', ("Yes", "No")),
        (
            "Options: walk / cycle / drive\nHow should I get to work in the rain?",
            ("walk", "cycle", "drive"),
        ),
    ],
)
def test_more_of_what_a_question_offers_is_read(question: str, texts: tuple[str, ...]) -> None:
    assert texts_of(question) == texts


def test_a_question_pointing_back_at_the_list_asks_for_one() -> None:
    options = read_options("A. Nile\nB. Thames\nC. Danube\nWhich of the above is in Africa?")
    assert options is not None
    assert options.texts == ("Nile", "Thames", "Danube")
    assert read_options("A. Nile\nB. Thames\nC. Danube\nWhich of the above are in Europe?") is None
