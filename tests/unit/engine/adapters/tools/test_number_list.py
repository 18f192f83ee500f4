"""The number-list tool: sequence rules and list facts, exact, and a reasoned refusal otherwise."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.adapters.tools.number_list import MAX_INPUT_CHARS, NumberList, find_numbers
from engine.adapters.tools.sequence_rule import continue_sequence, show
from engine.errors import ToolError


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        # the next term, and the rule that gives it
        (
            "What comes next: 2, 4, 6, 8?",
            "The sequence adds 2 each time, so the next number is 10.",
        ),
        (
            "What is the next number in the sequence 3, 9, 27?",
            "The sequence multiplies by 3 each time, so the next number is 81.",
        ),
        (
            "Continue the pattern 1, 1, 2, 3, 5",
            "Each number is the sum of the two before it, so the next number is 8.",
        ),
        (
            "What comes next: 1, 4, 9, 16, 25?",
            "The differences between terms grow by 2 each time, so the next number is 36.",
        ),
        (
            "What comes next: 20, 19, 17, 14?",
            "The differences between terms shrink by 1 each time, so the next number is 10.",
        ),
        (
            "What comes next: 10, 7, 4, 1?",
            "The sequence subtracts 3 each time, so the next number is -2.",
        ),
        ("What comes next: 5, 5, 5", "Every number is 5, so the next number is 5."),
        (
            "What comes next: 64, 32, 16, 8",
            "The sequence divides by 2 each time, so the next number is 4.",
        ),
        (
            "What comes next: 1, -2, 4, -8?",
            "The sequence multiplies by -2 each time, so the next number is 16.",
        ),
        (
            "What comes next: 1.5, 2.25, 3.375",
            "The sequence multiplies by 1.5 each time, so the next number is 5.0625.",
        ),
        (
            "What comes next: 0.1, 0.2, 0.3",
            "The sequence adds 0.1 each time, so the next number is 0.4.",
        ),
        (
            "Which number follows 2 4 6 8",
            "The sequence adds 2 each time, so the next number is 10.",
        ),
        ("What comes next: 2-4-6-8?", "The sequence adds 2 each time, so the next number is 10."),
        (
            "What comes next: 1, 2, 4, 8, ...?",
            "The sequence multiplies by 2 each time, so the next number is 16.",
        ),
        (
            "The first 4 terms of a sequence are 2, 4, 6, 8. What comes next?",
            "The sequence adds 2 each time, so the next number is 10.",
        ),
        (
            "Find the next two terms: 1, 4, 9, 16",
            "The differences between terms grow by 2 each time, so the next 2 numbers are 25, 36.",
        ),
        (
            "What are the next 3 numbers: 2, 4, 6",
            "The sequence adds 2 each time, so the next 3 numbers are 8, 10, 12.",
        ),
        (
            "What is the 10th term of 2, 4, 6, 8?",
            "The sequence adds 2 each time, so the tenth term is 20.",
        ),
        (
            "What is the 6th term: 1, 1, 2, 3",
            "Each number is the sum of the two before it, so the sixth term is 8.",
        ),
        ("What is the third number in 4, 8, 15, 16?", "The third number is 15."),
        ("What is the last number in 4, 8, 15?", "The last number is 15."),
        ("What is the penultimate number in 1, 2, 3?", "The second to last number is 2."),
        # extremes
        ("What is the largest number in 3, 9, 1?", "The largest number is 9."),
        ("Which is larger, 3.5 or 3.14?", "The largest number is 3.5."),
        ("Which is the biggest: 12, 7, 30 or 4?", "The largest number is 30."),
        ("Find the maximum of 2; 8; 5", "The largest number is 8."),
        ("Which is smaller: -2 or -7?", "The smallest number is -7."),
        ("What is the lowest value among 6, 3, 8?", "The smallest number is 3."),
        (
            "What are the largest and smallest numbers in 3, 9, 1?",
            "The largest number is 9 and the smallest number is 1.",
        ),
        ("What is the second largest number in 3, 9, 9, 1?", "The second largest number is 3."),
        ("What is the 2nd-smallest of 4, 1, 1, 7?", "The second smallest number is 4."),
        # sums, averages and the rest
        ("What is the sum of 1, 2, 3, 4?", "The sum is 10."),
        ("What is the total of 10, 20 and 30?", "The sum is 60."),
        ("Add up 1.5, 2.25 and -1", "The sum is 2.75."),
        ("What is the sum of 1,250 and 2,750?", "The sum is 4000."),
        ("What is the average of 1, 2, 4?", "The average is 7/3 (about 2.33333333333)."),
        ("Find the mean of 2.5, 3.5", "The average is 3."),
        ("What is the average of 1, 2?", "The average is 1.5."),
        ("What is the median of 5, 1, 3, 2?", "The median is 2.5."),
        ("Median of 1, 2, 3", "The median is 2."),
        ("What is the product of 2, 3, 4?", "The product is 24."),
        ("What is the range of 3, 9, 1?", "The range (largest minus smallest) is 8."),
        (
            "What is the difference between the largest and smallest of 3, 9, 1?",
            "The range (largest minus smallest) is 8.",
        ),
        ("How many numbers are in 4, 8, 15, 16, 23, 42?", "The count of numbers is 6."),
        # sorting
        ("Sort 5, 3, 9, 1", "From smallest to largest: 1, 3, 5, 9."),
        ("Sort 5, 3, 9, 1 in descending order", "From largest to smallest: 9, 5, 3, 1."),
        ("Order from largest to smallest: 4, 10, 7", "From largest to smallest: 10, 7, 4."),
        ("Arrange 3, 1, 2 from smallest to largest", "From smallest to largest: 1, 2, 3."),
        ("Put 0.5, -1, 0.25 in increasing order", "From smallest to largest: -1, 0.25, 0.5."),
        ("Sort these 4 numbers: 3, -1, 10 and 2", "From smallest to largest: -1, 2, 3, 10."),
        # no cue word: a bare sequence is continued
        ("1, 2, 3, 4, 5", "The sequence adds 1 each time, so the next number is 6."),
        (
            "What is the pattern: 7, 14, 21?",
            "The sequence adds 7 each time, so the next number is 28.",
        ),
        # a count that names the list's own length is set aside, and says so
        ("Here are 3 numbers: 8, 1, 5. Which is the smallest?", "The smallest number is 1."),
    ],
)
def test_answers_the_question_asked(question: str, answer: str) -> None:
    assert NumberList().run(question).output == answer


@pytest.mark.parametrize(
    ("question", "reason"),
    [
        ("What comes next: 2, 3, 5, 7, 11?", "no rule fits"),
        ("What comes next: 3, 1, 4, 1, 5?", "no rule fits"),
        # no cue word and no rule: the list's facts would answer a question nobody asked
        ("3, 9, 1", "no rule fits"),
        ("Look at 3, 1, 4, 1, 5", "did not understand what is asked"),
        ("What is the mode of 2, 2, 5?", "did not understand what is asked"),
        ("Which is the odd one out: 2, 4, 5, 8?", "did not understand what is asked"),
        # a number outside the list that is not its length
        ("Of 2, 6, 9, which is closest to 5?", "did not understand what is asked"),
        ("Here are 4 numbers: 8, 1, 5. Which is the smallest?", "the number 4 was not used"),
        ("What comes next: 1, 2, 2, 3", "no rule fits"),
        ("What comes next: 2, 4?", "at least three terms"),
        ("What is the next 20 numbers of 1, 2, 3", "the next 1 to 10 numbers"),
        ("What is the 1000th term of 1, 2, 3?", "up to the 100th only"),
        ("What is the 20th term of 2, 3, 5, 7?", "no rule fits"),
        ("What is the 0th number in 1, 2, 3?", "no 0th number in a list of 3"),
        ("What is the fifth to last number in 1, 2, 3?", "no fifth to last number in a list of 3"),
        ("What is the 5th largest in 1, 2?", "no 5th largest among 2 different numbers"),
        ("What comes next: 2, ?, 8, 16", "has a gap"),
        ("Sum 1, 2, ..., 10", "has a gap"),
        ("What comes next: 2, _, 6", "has a gap"),
        ("What comes next: 1, 2, x, 4, 5, 6", "has a gap"),
        ("How many even numbers are in 1, 2, 3, 4?", "'How many even' asks about part of the list"),
        ("What is the sum of the odd numbers in 1, 2, 3?", "'odd numbers in' asks about part"),
        ("What is the sum of the first 3 numbers in 1, 2, 3, 4?", "'first 3 numbers' asks about"),
        ("Which numbers are greater than 5 in 3, 7, 9?", "'greater than' asks about part"),
        ("What is 10 - 3?", "looks like arithmetic"),
        ("12 x 4", "found no list"),
        ("100 - 1 - 2", "looks like arithmetic"),
        ("What is 7 * 8?", "found no list of two or more numbers"),
        ("Ana has 5 apples and gets 3 more. How many apples?", "found no list"),
        ("What is the 3rd letter of 'orange'?", "found no list"),
        ("", "found no list"),
        ("Compare 1, 2 with 3, 4", "found 2 separate lists of 2 numbers"),
        ("What comes next: " + ", ".join(["9" * 60] * 3), "longer than 200 characters"),
        ("1, " * 70, f"longer than {MAX_INPUT_CHARS} characters"),
    ],
)
def test_refuses_with_the_reason(question: str, reason: str) -> None:
    with pytest.raises(ToolError, match=reason):
        NumberList().run(question)


def test_a_term_past_the_size_bound_is_refused() -> None:
    huge = 2**4000
    with pytest.raises(ToolError, match="too large"):
        continue_sequence([Fraction(1), Fraction(huge), Fraction(huge * huge)])


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("What comes after 3rd, 1st: 5, 6, 7", ["5", "6", "7"]),
        ("x2 y3 then 4 and 5", ["4", "5"]),
        ("+3, −4, -5.5", ["3", "-4", "-11/2"]),
        ("1,250 and 2,750", ["1250", "2750"]),
        ("2,4,6,8", ["2", "4", "6", "8"]),
        ("1 -> 2 → 3", ["1", "2", "3"]),
    ],
)
def test_reads_numbers_from_digits_only(text: str, numbers: list[str]) -> None:
    assert [str(number) for number in find_numbers(text)] == numbers


@given(
    st.integers(-1000, 1000),
    st.integers(-50, 50),
    st.integers(3, 8),
)
def test_an_arithmetic_sequence_continues_by_its_step(start: int, step: int, size: int) -> None:
    terms = [start + step * index for index in range(size)]
    question = "What comes next: " + ", ".join(str(term) for term in terms) + "?"
    assert NumberList().run(question).output.endswith(f"the next number is {start + step * size}.")


@given(st.integers(1, 9), st.sampled_from([-3, -2, 2, 3, 5]), st.integers(3, 6))
def test_a_geometric_sequence_continues_by_its_ratio(start: int, ratio: int, size: int) -> None:
    terms = [start * ratio**index for index in range(size)]
    _, after = continue_sequence([Fraction(term) for term in terms])
    assert after == [start * ratio**size]


@given(st.lists(st.integers(-(10**6), 10**6), min_size=2, max_size=8))
def test_list_facts_match_python(numbers: list[int]) -> None:
    listed = ", ".join(str(number) for number in numbers)
    assert NumberList().run(f"What is the sum of {listed}?").output == f"The sum is {sum(numbers)}."
    assert NumberList().run(f"Which is the largest: {listed}?").output == (
        f"The largest number is {max(numbers)}."
    )
    assert NumberList().run(f"Sort {listed}").output == (
        f"From smallest to largest: {', '.join(str(n) for n in sorted(numbers))}."
    )


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (Fraction(4), "4"),
        (Fraction(-3, 2), "-1.5"),
        (Fraction(1, 20), "0.05"),
        (Fraction(2, 3), "2/3 (about 0.666666666667)"),
        (Fraction(1, 2**20), "1/1048576 (about 9.53674316406e-07)"),
    ],
)
def test_show_is_exact_where_it_can_be(value: Fraction, shown: str) -> None:
    assert show(value) == shown


def test_the_tool_describes_itself() -> None:
    tool = NumberList()
    assert tool.name == "numbers"
    assert "next number" in tool.description
