"""A question about one part of its subject is answered about that part, or refused (issue 27).

"How many letters does the longest word in 'the quick brown fox' have?" was answered 16, the
letters of the whole phrase; "How many digits does the largest of 12, 345 and 7 have?" 345, the
number picked. The class: a superlative, an ordinal or "word(s)" that selects a part of the phrase
or list, then a question about that part. Each case here is a different shape of it.
"""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.adapters.tools.answer_line import AnswerLine
from engine.adapters.tools.number_list import NumberList
from engine.adapters.tools.text_facts import TextFacts
from engine.domain.records import ToolAnswer
from engine.errors import ToolRefusalError


@pytest.mark.parametrize(
    ("question", "value"),
    [
        # a fact about the selected word
        ("How many letters does the biggest word of 'a big hippopotamus' have?", "12"),
        ("How many letters are in the shortest word of 'an elephant walked by'?", "2"),  # tied
        ("What is the last letter of the first word in 'zebra crossing ahead'?", "a"),
        ("How many vowels does the last word of 'my old guitar' have?", "3"),
        ('Reverse the 2nd word of "hot dog stand".', "god"),
        ("How long is the second to last word in 'one fine spring day'?", "6"),
        ("Is the longest word in 'a racecar went by' a palindrome?", "yes"),
        # the selected word itself
        ("What is the longest word in 'we all love chocolate'?", "chocolate"),
        ("Which word in 'tiny enormous small' is the longest?", "enormous"),
        ("Find the third word of 'one two three four'.", "three"),
        ("what's the shortest word in ‘sunflowers grow so tall’", "so"),
    ],
)
def test_a_selected_word_is_answered_about_that_word(question: str, value: str) -> None:
    answer = AnswerLine(TextFacts()).run(question)
    assert isinstance(answer, ToolAnswer)
    assert answer.value == value, answer.output
    assert answer.output.endswith(f"\nAnswer: {value}")
    assert re.match(r"The [a-z0-9 ]+ words? of '", answer.output)  # it says which word it chose


@pytest.mark.parametrize(
    ("question", "reason"),
    [
        ("What is the longest word in 'red tan fox'?", "tied"),  # three tied words
        ("How many vowels are in the longest word of 'cat bee'?", "different answers"),
        ("What is the fifth word of 'one two three'?", "has 3 words, no fifth word"),
        ("How many letters are in each word of 'the quick fox'?", "'each'"),
        ("How many letters are in the words of 'the quick fox'?", "'words'"),
        ("How many letters does the tallest word in 'big red bus' have?", "'tallest'"),
        ("What is the most common word in 'a cat a dog'?", "'word'"),
        ("How many letters are in the middle word of 'red big bus'?", "'word'"),
        ("How many letters does the longest word in quick brown fox have?", "'longest'"),
        ("How many letters are in the longest words of 'a bb cc'?", "'longest'"),
    ],
)
def test_a_part_it_cannot_select_is_refused(question: str, reason: str) -> None:
    with pytest.raises(ToolRefusalError, match=reason):
        TextFacts().run(question)


def test_a_question_about_the_whole_phrase_is_still_answered() -> None:
    answer = TextFacts().run("How many letters are there in the phrase 'ice cream cone'?")
    assert answer.value == "12"
    assert TextFacts().run("Spell the word 'kitten' backwards.").value == "nettik"


# Two letters at least: a quoted single letter is the letter asked about, not the subject.
_WORDS = st.text(alphabet="abcdefghij", min_size=2, max_size=8)


@given(words=st.lists(_WORDS, min_size=2, max_size=6), longest=st.booleans())
def test_the_longest_and_shortest_words_are_selected_by_their_letters(
    words: list[str], longest: bool
) -> None:
    phrase = " ".join(words)
    which = "longest" if longest else "shortest"
    answer = TextFacts().run(f"How many letters does the {which} word in '{phrase}' have?")
    size = (max if longest else min)(len(word) for word in words)
    assert answer.value == str(size)
    tied = list(dict.fromkeys(word for word in words if len(word) == size))
    assert all(f"'{word}'" in answer.output for word in tied)


@given(words=st.lists(_WORDS, min_size=1, max_size=6), index=st.integers(1, 6))
def test_the_nth_word_is_selected_or_refused(words: list[str], index: int) -> None:
    ordinal = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth"}[index]
    question = f"How many letters are in the {ordinal} word of '{' '.join(words)}'?"
    if index > len(words):
        with pytest.raises(ToolRefusalError, match="words, no"):
            TextFacts().run(question)
    else:
        assert TextFacts().run(question).value == str(len(words[index - 1]))


@pytest.mark.parametrize(
    "question",
    [
        "How many digits are in the biggest of 7, 1234, 56?",
        "What is the smallest of 6, 2, 9 squared?",
        "Add the two smallest of 4, 1, 3.",
        "What is the sum of the largest and the smallest of 2, 8, 5?",
        "What is the square root of the greatest number in 9, 49, 25?",
        "Which is the largest number in 3, 12, 7 minus 2?",
        "What is the lowest of 8, 3, 6 rounded to tens?",
        "Tell me the 3rd number in 4, 6, 9, 13 times two.",
    ],
)
def test_a_question_about_the_number_picked_is_refused(question: str) -> None:
    with pytest.raises(ToolRefusalError):
        NumberList().run(question)


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("Which is the smallest: 14, 9, 11?", "9"),
        ("Find the third number in 5, 8, 13, 21.", "13"),
        ("What's the second largest of 4, 10, 7?", "7"),
        ("What are the largest and smallest values among 6, 2, 9?", "9, 2"),  # two facts, both
    ],
)
def test_a_pick_alone_is_answered(question: str, value: str) -> None:
    answer = AnswerLine(NumberList()).run(question)
    assert isinstance(answer, ToolAnswer)
    assert answer.value == value
    # Two values make no single answer line; one value does.
    assert answer.output.endswith(f"\nAnswer: {value}") == ("," not in value)
