"""The text-facts tool: exact letter facts for many phrasings, and a reasoned refusal otherwise."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.adapters.tools.ordinals import count_value, ordinal_name, ordinal_value
from engine.adapters.tools.subject import find_subject
from engine.adapters.tools.text_facts import MAX_INPUT_CHARS, TextFacts
from engine.errors import ToolError

WORDS = (
    "banana", "garden", "letter", "mississippi", "strawberry", "balloon", "coffee", "pepper",
    "bookkeeper", "committee", "rhythm", "window", "engineer", "parallel", "success", "kitten",
)  # fmt: skip


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        # how many times a letter occurs
        (
            "How many times does the letter 'r' appear in the word 'strawberry'?",
            "The letter 'r' occurs 3 times in 'strawberry'.",
        ),
        ("Count the r's in strawberry", "The letter 'r' occurs 3 times in 'strawberry'."),
        ("how often does 'e' occur in 'cheese'", "The letter 'e' occurs 3 times in 'cheese'."),
        ("How many rs in strawberry?", "The letter 'r' occurs 3 times in 'strawberry'."),
        ("How many s are in mississippi?", "The letter 's' occurs 4 times in 'mississippi'."),
        ("How many 'a's are in banana?", "The letter 'a' occurs 3 times in 'banana'."),
        ('How many "s" are in "success"?', "The letter 's' occurs 3 times in 'success'."),
        ("How many r’s are in ‘strawberry’?", "The letter 'r' occurs 3 times in 'strawberry'."),
        (
            "How many times does r occur in strawberry",
            "The letter 'r' occurs 3 times in 'strawberry'.",
        ),
        (
            "In the word 'banana', how many a's are there?",
            "The letter 'a' occurs 3 times in 'banana'.",
        ),
        ("How many m's does committee have", "The letter 'm' occurs 2 times in 'committee'."),
        ("what is the number of t's in committee", "The letter 't' occurs 2 times in 'committee'."),
        ("Count the letter l in 'parallel'", "The letter 'l' occurs 3 times in 'parallel'."),
        ("how many o in 'balloon'", "The letter 'o' occurs 2 times in 'balloon'."),
        (
            "How many times does the letter 's' appear in Mississippi?",
            "The letter 's' occurs 4 times in 'Mississippi'.",
        ),
        (
            "How many times does the letter 'E' appear in 'Engineer'?",
            "The letter 'E' occurs 3 times in 'Engineer'.",
        ),
        (
            "How many times does the letter 'q' appear in the word 'quiet'?",
            "The letter 'q' occurs 1 time in 'quiet'.",
        ),
        (
            "How many times does the letter 'z' appear in the word 'banana'?",
            "The letter 'z' occurs 0 times in 'banana'.",
        ),
        (
            "How many times does the letter 't' appear in the word 'letter'?",
            "The letter 't' occurs 2 times in 'letter'.",
        ),
        (
            "How many times does '1' appear in '1001'?",
            "The character '1' occurs 2 times in '1001'.",
        ),
        # whether a letter occurs at all
        ("Does 'apple' contain the letter 'p'?", "Yes, the letter 'p' occurs 2 times in 'apple'."),
        ("Does apple have a z?", "No, the letter 'z' occurs 0 times in 'apple'."),
        ("Is there an x in 'box'?", "Yes, the letter 'x' occurs 1 time in 'box'."),
        # length
        ("How many letters are in 'banana'?", "The word 'banana' has 6 letters."),
        ("How long is the word 'kitten'?", "The word 'kitten' has 6 letters."),
        ("What is the length of the word engineer?", "The word 'engineer' has 8 letters."),
        ("How many letters does the word committee have?", "The word 'committee' has 9 letters."),
        ("Count the letters in 'banana'", "The word 'banana' has 6 letters."),
        ("how many letters long is 'volcano'", "The word 'volcano' has 7 letters."),
        ("How many letters are in “rhythm”?", "The word 'rhythm' has 6 letters."),
        ("How many letters are in the word 'a'?", "The word 'a' has 1 letter."),
        (
            "How many letters in 'ice cream'?",
            "The phrase 'ice cream' has 8 letters, not counting spaces or punctuation.",
        ),
        ("Number of characters in 'hello world'", "The phrase 'hello world' has 11 characters."),
        # positions
        ("What is the first letter of the word 'apple'?", "The first letter of 'apple' is 'a'."),
        ("What is the third letter of 'orange'?", "The third letter of 'orange' is 'a'."),
        ("last letter of 'dog'", "The last letter of 'dog' is 'g'."),
        ("What's the 2nd letter in 'zebra'?", "The second letter of 'zebra' is 'e'."),
        ("What is the 5th letter in 'umbrella'?", "The fifth letter of 'umbrella' is 'e'."),
        ("what letter comes third in 'orange'", "The third letter of 'orange' is 'a'."),
        ("Which letter is last in 'zebra'?", "The last letter of 'zebra' is 'a'."),
        ("What letter does apple start with?", "The first letter of 'apple' is 'a'."),
        ("What does 'dog' end with?", "The last letter of 'dog' is 'g'."),
        (
            "What is the second to last letter of 'kitten'?",
            "The second to last letter of 'kitten' is 'e'.",
        ),
        ("The penultimate letter of 'kitten'?", "The second to last letter of 'kitten' is 'e'."),
        ("letter number 11 of 'bookkeepers'?", "The eleventh letter of 'bookkeepers' is 's'."),
        ("What is the first letter of the word 'Zebra'?", "The first letter of 'Zebra' is 'Z'."),
        ("What is the first letter of the word 'I'?", "The first letter of 'I' is 'I'."),
        (
            "What is the 4th character of 'ice cream'?",
            "The fourth character of 'ice cream' is ' '.",
        ),
        ("What is the 5th letter of 'ice cream'?", "The fifth letter of 'ice cream' is 'r'."),
        (
            "What are the first three letters of 'banana'?",
            "The first 3 letters of 'banana' are 'ban'.",
        ),
        ("What are the last 2 letters of 'kitten'?", "The last 2 letters of 'kitten' are 'en'."),
        # reversal and spelling
        ("Spell 'cat' backwards", "'cat' spelled backwards is 'tac'."),
        ("Reverse hello", "'hello' spelled backwards is 'olleh'."),
        ("What is cat spelled backwards?", "'cat' spelled backwards is 'tac'."),
        ("Give me the word 'Hello' reversed", "'Hello' spelled backwards is 'olleH'."),
        ("Write 'stressed' in reverse", "'stressed' spelled backwards is 'desserts'."),
        ("How do you spell necessary?", "'necessary' is spelled n-e-c-e-s-s-a-r-y."),
        ("Spell 'rhythm' letter by letter", "'rhythm' is spelled r-h-y-t-h-m."),
        # palindromes
        (
            "Is racecar a palindrome?",
            "Yes, 'racecar' is a palindrome: it reads the same backwards.",
        ),
        ("Is 'Level' a palindrome?", "Yes, 'Level' is a palindrome: it reads the same backwards."),
        (
            "Is 'hello' a palindrome?",
            "No, 'hello' is not a palindrome: backwards it reads 'olleh'.",
        ),
        (
            "Is 'Never odd or even' a palindrome?",
            "Yes, 'Never odd or even' is a palindrome: it reads the same backwards.",
        ),
        # vowels, consonants, different and most common letters
        (
            "How many vowels are in 'rhythm'?",
            "The number of vowels (a, e, i, o, u) in 'rhythm' is 0.",
        ),
        (
            "Count the vowels in 'education'",
            "The number of vowels (a, e, i, o, u) in 'education' is 5.",
        ),
        ("How many consonants in strawberry?", "The number of consonants in 'strawberry' is 8."),
        (
            "How many different letters are in 'mississippi'?",
            "The number of different letters in 'mississippi' is 4.",
        ),
        (
            "How many unique letters in 'Banana'?",
            "The number of different letters in 'Banana' is 3.",
        ),
        ("Which letter appears most in 'banana'?", "The most common letter in 'banana' is 'a'."),
        (
            "Which letter occurs most often in 'success'?",
            "The most common letter in 'success' is 's'.",
        ),
        ("Most common letter in 'abab'?", "The most common letters in 'abab' are 'a' and 'b'."),
        # the word alone: the facts every answer uses
        ("'kitten'", "'kitten' has 6 letters: k-i-t-t-e-n."),
        ("strawberry", "'strawberry' has 10 letters: s-t-r-a-w-b-e-r-r-y."),
    ],
)
def test_answers_the_question_asked(question: str, answer: str) -> None:
    assert TextFacts().run(question).output == answer


@pytest.mark.parametrize("word", WORDS)
def test_counts_every_letter_of_the_task_phrasing(word: str) -> None:
    for letter in [*sorted(set(word)), "x", "z"]:
        question = f"How many times does the letter '{letter}' appear in the word '{word}'?"
        count = word.count(letter)
        times = "time" if count == 1 else "times"
        assert TextFacts().run(question).output == (
            f"The letter '{letter}' occurs {count} {times} in '{word}'."
        )


@pytest.mark.parametrize("word", WORDS)
def test_first_and_last_letter_of_the_task_phrasing(word: str) -> None:
    first = TextFacts().run(f"What is the first letter of the word '{word}'?").output
    last = TextFacts().run(f"What is the last letter of the word '{word}'?").output
    assert first == f"The first letter of '{word}' is '{word[0]}'."
    assert last == f"The last letter of '{word}' is '{word[-1]}'."


@given(st.text(alphabet="abcdefghij", min_size=2, max_size=30), st.sampled_from("abcdefghij"))
def test_counting_is_case_insensitive(word: str, letter: str) -> None:
    expected = word.count(letter)
    for shown in (word, word.upper()):
        answer = TextFacts().run(f"How many times does '{letter}' appear in '{shown}'?").output
        assert f" occurs {expected} time" in answer


@pytest.mark.parametrize(
    ("question", "reason"),
    [
        ("What does 'ephemeral' mean?", "understood the word 'ephemeral' but not the question"),
        ("What is the capital of France?", "understood the word 'France'"),
        ("the letter 'r' in 'strawberry'", "understood the word 'strawberry'"),
        ("What vowels are in 'banana'?", "understood the word 'banana'"),
        ("What is 17 + 25?", "found no word to examine"),
        ("How many letters are in the English alphabet?", "found no word to examine"),
        ("", "found no word to examine"),
        ("How many times does 'ss' appear in 'mississippi'?", "single letters only, not 'ss'"),
        ("Is 'noon' longer than 'moon'?", "several quoted words \\('noon', 'moon'\\)"),
        ("What is the tenth letter of 'dog'?", "'dog' has only 3 letters"),
        ("What is the second to last letter of the word 'I'?", "'I' has only 1 letter"),
        ("What is the 0th letter of 'dog'?", "there is no 0th letter"),
        ("What are the first 5 letters of 'dog'?", "'dog' has only 3 letters"),
        ("What are the last 0 letters of 'dog'?", "asks for 0 letters"),
        ("a" * (MAX_INPUT_CHARS + 1), f"longer than {MAX_INPUT_CHARS} characters"),
    ],
)
def test_refuses_with_the_reason(question: str, reason: str) -> None:
    with pytest.raises(ToolError, match=reason):
        TextFacts().run(question)


def test_the_length_limit_is_inclusive() -> None:
    question = "How many letters are in 'banana'?"
    padded = question + " " * (MAX_INPUT_CHARS - len(question))
    assert TextFacts().run(padded).output == "The word 'banana' has 6 letters."


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("How many r's are in strawberry?", "strawberry"),
        ("How many times does 'r' appear in the word strawberry?", "strawberry"),
        ("What is the first letter of the word apple?", "apple"),
        ("How many letters in the name Elizabeth?", "Elizabeth"),
        ("Is level a palindrome?", "level"),
        ("How do you spell cat backwards?", "cat"),
        ("Does apple start with a?", "apple"),
        ("How long is kitten?", "kitten"),
        ("How many letters are in the word 'don't'?", "don't"),
        ("How many letters are in “well-known”?", "well-known"),
    ],
)
def test_finds_the_subject_quoted_or_not(question: str, subject: str) -> None:
    found, start, end = find_subject(question)
    assert found == subject
    assert subject in question[start:end]


@pytest.mark.parametrize(
    ("ordinal", "position"),
    [("first", 1), ("Twentieth", 20), ("22nd", 22), ("last", -1), ("second last", -2)],
)
def test_ordinals_read_and_write_back(ordinal: str, position: int) -> None:
    assert ordinal_value(ordinal) == position
    assert ordinal_value(ordinal_name(position)) == position


def test_count_words_and_digits_read_alike() -> None:
    assert [count_value(text) for text in ("three", "Ten", "7")] == [3, 10, 7]


def test_the_tool_describes_itself() -> None:
    tool = TextFacts()
    assert tool.name == "text"
    assert "letter" in tool.description
