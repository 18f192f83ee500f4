"""Query features: robust task families, a fixed-length one-hot vector, deterministic."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from experiments.regex_families import FAMILIES, family, feature_names, query_features

EXAMPLES = {
    "arithmetic": [
        "What is 17 + 25?",
        "What is 3 + 4?",
        "Compute 12*7.",
        "What is 144 / 12?",
        "What is 6 x 7?",
        "What is seven plus five?",
        "What is 15% of 80?",
        "What is the square root of 81?",
        "What is the sum of 13 and 29?",
        "What is 5 less than 12?",
        "Tom has 3 apples and buys 5 more. How many apples does he have now?",
        "A shirt costs $20 and a hat costs $15. How much do they cost in total?",
        "Sara had 24 cookies and gave away 9. How many are left?",
        "If I have 3 apples and eat 1, then how many are left?",
        "There are twelve eggs in each box. How many eggs are in three boxes?",
        "Calculate the average of 4, 8 and 12.",
    ],
    "letter_position": [
        "What is the first letter of the word 'banana'?",
        "What is the last letter of 'python'?",
        "What is the third letter of 'orange'?",
        "Which word starts with the letter b: apple or banana?",
    ],
    "letters": [
        "How many r's are in 'strawberry'?",
        "How many times does the letter e appear in 'excellence'?",
        "How many letters are in the word 'elephant'?",
        "How many vowels are in 'education'?",
        "Spell 'cat' backwards.",
        "Reverse the word 'stressed'.",
        "Is 'racecar' a palindrome?",
        "Sort these words alphabetically: pear, apple, fig.",
        "Write the word 'house' with the letters in reverse order.",
    ],
    "date": [
        "What day of the week is 3 days after Monday?",
        "What date is 10 days after 2024-03-01?",
        "How many days are between 2024-01-01 and 2024-03-01?",
        "Is 2024 a leap year?",
        "If today is Friday, what day was it 2 days ago?",
        "What is the date one week after March 3, 2021?",
        "What month comes 4 months after October?",
        "What year was it 15 years before 2010?",
        "Which day comes after the 28th of February in 2023?",
        "If my birthday is on 12/25/2023, how many weeks until then from 12/01/2023?",
    ],
    "unit_conversion": [
        "Convert 5 km to miles.",
        "How many centimeters are in 3 meters?",
        "What is 100 °F in °C?",
        "How many minutes are in 3 hours?",
        "How many grams are in 2.5 kg?",
        "What is 10 miles in kilometers?",
        "How many ounces make a pound?",
        "Express 2 hours as seconds.",
        "How many feet are in a mile?",
        "What is 3 gallons in liters?",
    ],
    "comparison": [
        "Is 7 greater than 12?",
        "Which is bigger, 0.5 or 0.45?",
        "Is an elephant heavier than a mouse?",
        "Is the Nile longer than the Amazon?",
        "Which is larger: 2^10 or 1000?",
        "Is 3/4 equal to 0.75?",
        "Are cats faster than dogs?",
    ],
    "logic_puzzle": [
        "All bloops are razzies and all razzies are lazzies. Are all bloops lazzies?",
        "If all cats are animals and some animals are black, can we conclude some cats are black?",
        "Alice is taller than Bob and Bob is taller than Carol. Who is the shortest?",
        "If it rains, then the ground is wet. The ground is dry. Did it rain?",
        "A knight always tells the truth and a knave always lies. A says B is a knave. ...",
        "What comes next: 2, 4, 8, 16, ...?",
        "Here is a riddle: what has keys but can't open locks?",
        "True or false: every square is a rectangle.",
        "Ann sits next to Ben, and Ben sits between Ann and Cy. Who is in the middle?",
    ],
    "multiple_choice": [
        "Which planet is largest? A) Mars B) Jupiter C) Venus",
        "What is 2 + 2?\nA. 3\nB. 4\nC. 5",
        "Which is a fruit? (A) stone (B) apple (C) chair",
        "Which of the following is a mammal: shark, whale, trout?",
        "Pick the capital of Italy. Options: Rome, Milan, Naples",
        "Which day follows Monday? A) Sunday B) Tuesday C) Friday",
        "How many legs does a spider have?\nA: 6\nB: 8\nC: 10",
    ],
    "classification": [
        "What is the sentiment of this review: 'The food was awful.'?",
        "Is this review positive or negative: 'I loved every minute.'",
        "Which is the odd one out: apple, banana, carrot, grape?",
        "Which word does not belong: red, blue, dog, green?",
        "Classify this email as spam or not spam: 'You won a prize!'",
        "Categorize these animals into mammals and birds: bat, eagle, cow.",
    ],
    "factual": [
        "What is the capital of France?",
        "Who wrote 'Pride and Prejudice'?",
        "When did World War II end?",
        "Where is Mount Kilimanjaro?",
        "Which element has the symbol O?",
        "What is photosynthesis?",
        "Who invented the telephone?",
        "How tall is Mount Everest?",
        "Is the Earth round?",
        "Name the largest ocean on Earth.",
        "Define entropy.",
    ],
    "open_ended": [
        "Why is the sky blue?",
        "Explain how a bicycle stays upright.",
        "Write a short poem about the sea.",
        "How can I learn to cook?",
        "What are some ways to save energy at home?",
        "Describe your ideal weekend.",
        "Give me three ideas for a birthday party.",
        "What do you think about remote work?",
        "Suggest a name for my cat.",
        "",
        "Hello!",
        "The weather is nice today, I went for a walk",
    ],
}


@pytest.mark.parametrize(
    ("expected", "query"),
    [(name, query) for name, queries in EXAMPLES.items() for query in queries],
)
def test_family_of_example_queries(expected: str, query: str) -> None:
    assert family(query) == expected


def test_every_family_has_examples() -> None:
    assert set(EXAMPLES) == set(FAMILIES)


def test_family_ignores_spacing_and_case() -> None:
    assert family("  WHAT   is\n17\t+ 25 ? ") == "arithmetic"
    assert family("how MANY R'S ARE IN 'STRAWBERRY'?") == "letters"


def test_feature_vector_is_one_hot_family_plus_bias() -> None:
    vector = query_features("Convert 5 km to miles.")
    assert vector.dtype == np.float64
    assert vector.shape == (len(FAMILIES) + 1,)
    assert feature_names()[int(np.argmax(vector[:-1]))] == "family=unit_conversion"
    assert vector.sum() == 2.0
    assert vector[-1] == 1.0
    assert len(feature_names()) == vector.size


def test_non_text_is_refused() -> None:
    with pytest.raises(TypeError, match="query must be a string, got bytes"):
        family(b"2 + 2")  # type: ignore[arg-type]


@given(st.text(max_size=300))
def test_any_text_gets_exactly_one_family_deterministically(query: str) -> None:
    vector = query_features(query)
    assert np.array_equal(vector, query_features(query))
    assert vector[:-1].sum() == 1.0
    assert feature_names()[int(np.argmax(vector[:-1]))] == f"family={family(query)}"


def test_a_huge_query_is_classified_quickly_by_its_start() -> None:
    # Not a timing test: a catastrophic regex would hang here, and pytest-timeout would catch it.
    assert family("What is 2 + 2? " + "blah " * 200_000) == "arithmetic"
