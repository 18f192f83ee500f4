"""The whole-text frame (`engine.domain.option_frame`) on phrasings of the hard classes.

Written for the redesign, not drawn from any held-out set: each class refuses by the frame's
structure (an instruction whose verb is not one of answering, a second question or request,
something after the options beyond how to answer, code, a wh-word that does not pick, a fixed
phrase), not by a rule for its words.
"""

import pytest

from engine.domain.options import NoOptions, read_options, understand_options

_REFUSED = [
    # tasks on a quiz item
    "Turn this quiz item into a fill-in-the-blank question: Which planet is red? (A) Mars "
    "(B) Venus",
    "Shorten each option so it fits on a slide:\nWhich fruit is yellow?\nA. A long curved banana\n"
    "B. A small round grape",
    "Add a plausible distractor to this question: Who painted the Mona Lisa? (A) Leonardo "
    "(B) Picasso",
    "Score my students' answers to this item: Which gas do we breathe out? (A) oxygen "
    "(B) carbon dioxide",
    "Put this question into Spanish for me: Is the sun a star?",
    "Draft a harder version of the following item:\nWhich is prime?\n(a) 4\n(b) 7",
    "Find a better wording for this question, keeping its options: Which is colder, ice or steam?",
    # alternatives that are not the answer asked for
    "Which year did the Berlin Wall fall, give or take?",
    "Give or take?",
    "How much does a litre of milk weigh, give or take?",
    "What time does the shop open, sooner or later?",
    "Roughly how far is it from London to Paris, one way or the other?",
    "Is this function pure?\n```js\nfunction f(a, b) { return a || b; }\n```",
    "What does x(a, b) return when a or b is null?",
    # requests shaped like yes/no questions
    "Is it possible for you to pick the winner for me, red or blue?",
    "Would you mind checking if 91 is prime?",
    # several questions, or more asked after the options
    "Is 51 prime? What are its factors?",
    "Which is heavier, a kilo of lead or a kilo of feathers? And why do people get it wrong?",
    "Is a whale a fish or a mammal? Explain your reasoning in two sentences.",
    "Which city is larger? (A) Lyon (B) Nice\nAlso list three facts about each city.",
]


@pytest.mark.parametrize("question", _REFUSED)
def test_the_hard_classes_refuse(question: str) -> None:
    assert isinstance(understand_options(question), NoOptions), understand_options(question)


@pytest.mark.parametrize(
    ("question", "texts"),
    [
        # The same shapes, asked: the frame refuses the text around them, not the structure.
        ("Which planet is red? (A) Mars (B) Venus", ("Mars", "Venus")),
        ("Read the item and choose one: Which is prime?\n(a) 4\n(b) 7", ("4", "7")),
        ("Which is colder, ice or steam?", ("ice", "steam")),
        ("Is 51 prime?", ("Yes", "No")),
        ("Which city is larger? (A) Lyon (B) Nice\nAnswer with the letter only.", ("Lyon", "Nice")),
        (
            "What does this print?\n```python\nprint(1 + 1)\n```\n(A) 11\n(B) 2",
            ("11", "2"),
        ),
        (
            "Alice has the red ball and Bob the blue one. They swap. Alice now has the\n"
            "Options:\n(A) red ball\n(B) blue ball",
            ("red ball", "blue ball"),
        ),
    ],
)
def test_the_same_structures_asked_still_read(question: str, texts: tuple[str, ...]) -> None:
    reading = read_options(question)
    assert reading is not None, understand_options(question)
    assert reading.texts == texts
