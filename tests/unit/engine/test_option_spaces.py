"""Answer spaces issue 39 found unread, on phrasings of their own (neither the held-out nor the
development set under experiments/option_reading/ is used here)."""

import pytest

from engine.domain.options import NoOptions, read_options, understand_options


@pytest.mark.parametrize(
    ("question", "texts", "form"),
    [
        # an answer space named in a sentence of its own
        (
            "The bridge was closed, so the bus went the long way. Did the closure make the bus "
            "late? Answer plausible or implausible.",
            ("plausible", "implausible"),
            "word",
        ),
        (
            "Is this claim supported by the text? Answer supported, refuted, or unknown. "
            "Text: The museum opens at nine.",
            ("supported", "refuted", "unknown"),
            "word",
        ),
        (
            "Reply with 'approve', 'escalate' or 'reject'. Request: a refund of 12 EUR.",
            ("approve", "escalate", "reject"),
            "word",
        ),
        ("Choose from: Python, Rust, Go. Which compiles to native code by default?", None, None),
        # "Answer A, B or C.": the letters of the block, before or after it
        (
            "Which animal is a reptile? (A) frog (B) gecko (C) salmon Answer A, B, or C.",
            ("frog", "gecko", "salmon"),
            "letter",
        ),
        (
            "Which river flows through Vienna? Answer A or B. A. the Danube B. the Rhine",
            ("the Danube", "the Rhine"),
            "letter",
        ),
        # a statement the options complete
        (
            "The currency of Japan is the: (A) won (B) yen (C) yuan",
            ("won", "yen", "yuan"),
            "letter",
        ),
        ("Insulin is produced in the: A. liver B. pancreas", ("liver", "pancreas"), "letter"),
        # classes in brackets for one thing
        (
            "Route this message: the invoice shows the wrong VAT number (sales, billing, support)",
            ("sales", "billing", "support"),
            "word",
        ),
        (
            "Urgency of this ticket (low / medium / high): 'The printer on floor 2 jams.'",
            ("low", "medium", "high"),
            "word",
        ),
        (
            "Categorise the purchase 'train to Leeds' as travel, food or equipment.",
            ("travel", "food", "equipment"),
            "word",
        ),
        # alternatives in a question's clause, where they exclude each other
        ("Was the Eiffel Tower finished in 1889 or 1901?", ("1889", "1901"), "word"),
        ("Is Lake Baikal in Russia or Mongolia?", ("Russia", "Mongolia"), "word"),
        ("Is a kilometre longer or shorter than a mile?", ("longer", "shorter"), "word"),
        ("Did Newton or Leibniz publish calculus first?", ("Newton", "Leibniz"), "word"),
        ("Should bread be kept in the fridge or in a bread bin?", None, None),
        ("Oxygen or nitrogen — which makes up most of the air?", ("Oxygen", "nitrogen"), "word"),
        ("Myth or fact: 'We use only ten percent of our brains.'", ("Myth", "fact"), "word"),
        ("The chemical formula of table salt is ___. (A) KCl (B) NaCl", ("KCl", "NaCl"), "letter"),
        (
            "A) Oslo B) Bergen C) Tromsø. Which of these is the capital of Norway?",
            ("Oslo", "Bergen", "Tromsø"),
            "letter",
        ),
        ("is sourdough healthier than white bread", ("Yes", "No"), "word"),
        (
            "Which of Ganymede, Titan and Europa is the largest moon?",
            ("Ganymede", "Titan", "Europa"),
            "word",
        ),
        ("Is the phrase 'over the moon' literal or figurative?", ("literal", "figurative"), "word"),
        (
            "Given a pH of 3, is the solution acidic, neutral or basic?",
            ("acidic", "neutral", "basic"),
            "word",
        ),
        # "both" and "neither" where the question writes them
        ("Is a platypus a mammal, a bird, or neither?", ("a mammal", "a bird", "neither"), "word"),
        (
            "Does the passage mention a name, a place, both, or neither? 'Anna flew home.'",
            ("a name", "a place", "both", "neither"),
            "word",
        ),
    ],
)
def test_reads_the_answer_spaces_people_write(
    question: str, texts: tuple[str, ...] | None, form: str | None
) -> None:
    reading = read_options(question)
    if texts is None:  # read, whatever the exact split: only that something was
        assert reading is not None, understand_options(question)
        return
    assert reading is not None, understand_options(question)
    assert (reading.texts, reading.form) == (texts, form)


@pytest.mark.parametrize(
    "question",
    [
        "Please answer in Dutch or German: where is the station?",  # the language, not options
        "Write a function that returns 'even' or 'odd' for a number.",
        "Answer yes or no, true or false: the sea is salty.",  # two spaces in one
        "Answer A, B or C. Which is the largest ocean?",  # letters of options never written
        "Which is a prime? (A) 4 (B) 7 (C) 9 Answer A, B, C or D.",  # letters that do not match
        "The steps were: (a) mix (b) bake. Write them up as a recipe.",
        "Is the café open on Saturday or Sunday?",  # "or" may be inclusive: both may be open
        "Can I pay by card or in cash?",  # whether either will do
        "Should I use salt or sugar to cure salmon, and for how long?",
        "Is it safe to give a dog grapes or raisins?",
        "Tea or coffee — which is healthier, and why does it matter?",
        "Options trading or index funds: what should a beginner read about first?",
        "Plan a weekend in Lisbon (food, museums, beaches).",
        "What are common cloud providers (AWS, Azure, GCP)?",
        "Triage these tickets (billing, technical, other): 'refund', 'crash'",
        "Which of 2, 4 or 8 is a power of two?",  # values: several may hold
        "Does Netflix or Disney Plus have more subscribers?",  # the second name runs on
        "Did you walk or cycle to the office today?",  # put to the reader
        "My favourite colours are: (a) red (b) blue",  # the asker's news, not a quiz item
        "The primary colours are: (a) red (b) blue (c) yellow",  # "are:" may list them all
        "can you summarise this article for me",
        "is there any way to speed up my laptop",
    ],
)
def test_refuses_what_is_no_answer_space(question: str) -> None:
    reading = understand_options(question)
    assert isinstance(reading, NoOptions), reading


def test_the_card_says_what_was_read() -> None:
    reading = read_options("Which is a gas? (A) iron (B) neon Answer A or B.")
    assert reading is not None
    assert "answered A, B" in reading.understood
