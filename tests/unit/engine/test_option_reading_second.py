"""Classes the reader learned after its first held-out set (issue 39, item 1), on phrasings of
their own: none of these questions is in a set under experiments/option_reading/."""

import pytest

from engine.domain.options import NoOptions, read_options, understand_options


@pytest.mark.parametrize(
    ("question", "texts"),
    [
        # "or" inside a word of the label before the colon ("chloride", "chlorine")
        ("Potassium chloride: soluble or insoluble?", ("soluble", "insoluble")),
        ("Chlorine gas: toxic or harmless?", ("toxic", "harmless")),
        # a verb of putting in a class names its thing at a clause's length
        (
            "Rate the severity of this reported outage (minor, major, critical): 'API down'",
            ("minor", "major", "critical"),
        ),
        # "Categories:" after quoted material
        (
            "Sort this out: 'Where is my parcel?' Categories: delivery, refund, other",
            ("delivery", "refund", "other"),
        ),
        # a named answer list over labelled statements it refers to
        (
            "Fact 1: Ice is water. Fact 2: Steam is water. Which fact holds? "
            "Answer 1, 2, both, or neither.",
            ("1", "2", "both", "neither"),
        ),
        # context, a comma, then a wh-clause whose colon lists the alternatives
        (
            "Reading 'Tom thanked Jim because he helped', who does 'he' mean: Tom or Jim?",
            ("Tom", "Jim"),
        ),
        # context, a colon, then a picking question with its list
        ("Boiling points of oils: which is higher, olive or canola?", ("olive", "canola")),
        # bullets after a blank line, or under a line with a blank to fill
        ("Which metal is liquid at room temperature?\n\n- mercury\n- iron", ("mercury", "iron")),
        ("Complete it: She ___ to school yesterday.\n- walked\n- walks", ("walked", "walks")),
        # a compared pair before an adverbial and its "than"
        ("Is gold heavier or lighter per litre than lead?", ("heavier", "lighter")),
        ("Is sound slower or faster underwater than in air?", ("slower", "faster")),
    ],
)
def test_new_classes_are_read(question: str, texts: tuple[str, ...]) -> None:
    reading = read_options(question)
    assert reading is not None, understand_options(question)
    assert reading.texts == texts
    assert reading.form == "word"


@pytest.mark.parametrize(
    "question",
    [
        # the first word after the list runs the alternative on: not a pair before "than"
        "Is it cheaper or more expensive to rent than to buy?",
        "Are cars safer or more dangerous now than in 1980?",
        # a blank in a header that labels a list, and a list under it
        "Agenda for the ___ review:\n- budget\n- hiring",
        # something asked of every listed category
        "Categories: rent, food, fun. What share of my pay should go to each of them?",
        "Options: gym, pool, track. How often should I go for each?",
        # an instruction before the question, not material it is about
        "Rewrite for a child, keeping the choices: Which is warmer, wool or cotton?",
        # the context before the wh-clause offers alternatives of its own
        "Given a cat or a dog, which one needs walking: the cat or the dog?",
    ],
)
def test_near_misses_stay_refused(question: str) -> None:
    assert isinstance(understand_options(question), NoOptions), understand_options(question)


@pytest.mark.parametrize(
    ("question", "texts", "form"),
    [
        # the list's own picking question after the last inline option
        (
            "Lunch is served at: A. noon B. 1 pm. Which one is on the menu card?",
            ("noon", "1 pm"),
            "letter",
        ),
        # the quoted sentence the subject stands in, after the alternatives
        ("Is the word 'run' a noun or a verb in 'Go for a run'?", ("a noun", "a verb"), "word"),
    ],
)
def test_trailing_parts_are_read(question: str, texts: tuple[str, ...], form: str) -> None:
    reading = read_options(question)
    assert reading is not None, understand_options(question)
    assert (reading.texts, reading.form) == (texts, form)
