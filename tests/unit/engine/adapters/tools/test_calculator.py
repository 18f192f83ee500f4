"""The calculator: exact arithmetic, and a refusal with the reason for everything else."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.adapters.tools.calculator import MAX_INPUT_CHARS, Calculator, evaluate, format_number
from engine.errors import ToolError, ToolRefusalError


@pytest.mark.parametrize(
    ("argument", "output"),
    [
        ("2 + 3 * 4", "2 + 3 * 4 = 14"),
        ("(2 + 3) * 4", "(2 + 3) * 4 = 20"),
        ("What is 17 * 23?", "17 * 23 = 391"),
        ("7 plus 5", "7 + 5 = 12"),
        ("What is 3 x 4 minus 2?", "3 * 4 - 2 = 10"),
        ("What is 2 plus 3 times 4?", "2 + 3 * 4 = 14"),
        ("12 divided by 4", "12 / 4 = 3"),
        ("6 multiplied by 7", "6 * 7 = 42"),
        ("2 ^ 10", "2 ** 10 = 1024"),
        ("9 × 3 ÷ 2", "9 * 3 / 2 = 13.5"),
        ("What is 15% of 80?", "(15 / 100 * 80) = 12"),
        ("17 % 5", "17 % 5 = 2"),
        ("17 // 5", "17 // 5 = 3"),
        ("-3 ** 2", "-3 ** 2 = -9"),
        ("2 ** -2", "2 ** -2 = 0.25"),
        ("1,250 + 750", "1250 + 750 = 2000"),
        ("sqrt(16) + abs(-2)", "sqrt(16) + abs(-2) = 6"),
        ("max(3, 7) - min(2, 9)", "max(3, 7) - min(2, 9) = 5"),
        ("factorial(5)", "factorial(5) = 120"),
        ("round(pi, 2)", "round(pi, 2) = 3.14"),
        ("0.1 + 0.2", "0.1 + 0.2 = 0.3"),
        ("2 ** 100", "2 ** 100 = 1267650600228229401496703205376"),
    ],
)
def test_arithmetic_is_exact(argument: str, output: str) -> None:
    answer = Calculator().run(argument)
    assert answer.output == output
    assert answer.fully_parsed
    assert answer.value == output.rsplit("= ", 1)[-1]
    assert answer.provenance == f"parsed the whole question and computed {output}"


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("What is 6 less than 41?", "35"),  # the operands of "less than" in English order
        ("What is 4 fewer than 30?", "26"),
        ("What number is 11 more than 19?", "30"),
        ("Take 9 away from 50", "41"),
        ("subtract eight from sixty", "52"),
        ("What is the difference between 81 and 19?", "62"),
        ("What is the product of 12 and 12?", "144"),
        ("what's the quotient of 96 and 8", "12"),
        ("What's 2,500 plus 1,300?", "3800"),
        ("What is twice 17?", "34"),
        ("What is half of 3,000?", "1500"),
        ("What is 7 cubed?", "343"),
        ("What is the square root of 81?", "9"),
        ("three quarters of 200 is what", "150"),
        ("What is 5/8 of 40?", "25"),
        ("Calculate 20 percent of 45.", "9"),
        ("Multiply 14 by 3", "42"),
    ],
)
def test_arithmetic_said_in_words_is_read_whole(question: str, value: str) -> None:
    assert Calculator().run(question).value == value


@pytest.mark.parametrize(
    "question",
    [
        "What is 7 less than 20 apples?",  # a word no phrase reads
        "What is 5?",  # no operation
        "What is 3 plus 4 or 5 plus 6?",  # two questions
        "What is 7 less than 20 plus 1?",  # (20 - 7) + 1 or 20 - (7 + 1)
        "What is the sum of 3 and 4 times 2?",  # (3 + 4) * 2 or 3 + 4 * 2
        "Who was born in 1990?",
        "Is 17 a prime number?",
        "How many legs do 3 spiders have?",  # needs knowledge, not arithmetic
    ],
)
def test_arithmetic_not_read_whole_is_refused(question: str) -> None:
    with pytest.raises(ToolRefusalError):
        Calculator().run(question)


CODE = [
    ("__import__('os').system('true')", 'system" is not an allowed function'),
    ("__import__('os')", "'__import__' is not an allowed function"),
    ("open('/etc/passwd')", "'open' is not an allowed function"),
    ("(1).__class__", "Attribute is not allowed"),
    ("(1).real", "Attribute is not allowed"),
    ("[1, 2] * 3", "List is not allowed"),
    ("'a' * 3", "'a' is not a number"),
    ("lambda: 1", "Lambda is not allowed"),
    ("sqrt(x=4)", "plain arguments only"),
    ("sqrt(*[4])", "plain arguments only"),
    ("sqrt()", "needs an argument"),
    ("True + 1", "True is not a number"),
    ("1 if 2 else 3", "IfExp is not allowed"),
    ("1 < 2", "Compare is not allowed"),
    ("1 << 2", "LShift is not allowed"),
    ("~1", "UnaryOp is not allowed"),
    ("x", "'x' is not an allowed function or constant"),
    ("1j + 1", "1j is not a number"),
]


@pytest.mark.parametrize(("expression", "reason"), CODE)
def test_evaluate_refuses_anything_but_arithmetic(expression: str, reason: str) -> None:
    with pytest.raises(ToolError, match=reason):
        evaluate(expression)


REFUSED = r"not pure arithmetic|cannot parse|not allowed|not a number|no operation"


@pytest.mark.parametrize("text", [text for text, _ in CODE[:10]])
def test_the_tool_never_runs_code_hidden_in_its_argument(text: str) -> None:
    with pytest.raises(ToolError, match=REFUSED):
        Calculator().run(text)


@pytest.mark.parametrize(
    ("argument", "reason"),
    [
        ("1 / 0", "division by zero"),
        ("5 % 0", "division by zero"),
        ("0 ** -1", "division by zero"),
        ("9 ** 9 ** 9", "too large"),
        ("10 ** 5000", "too large"),
        ("1e999 + 1", "too large"),
        ("exp(1000)", "too large"),
        ("10.0 ** 400", "too large"),
        ("factorial(171)", "factorial needs a number from 0 to 170"),
        ("factorial(2.5)", "factorial needs a whole number"),
        ("sqrt(-1)", "math error"),
        ("(-8) ** (1 / 3)", "not a real number"),
        ("(1, 2) + 1", "a comma may only separate"),
        ("How many r's are in strawberry?", "not pure arithmetic"),
        ("Is 5 a prime?", "not pure arithmetic"),
        ("", "no operation"),
        ("1+" * 150 + "1", f"longer than {MAX_INPUT_CHARS}"),
        ("(" * 90 + "1 + 1" + ")" * 89, "cannot parse"),
    ],
)
def test_anything_else_is_refused_with_the_reason(argument: str, reason: str) -> None:
    with pytest.raises(ToolError, match=reason):
        Calculator().run(argument)


def test_evaluate_refuses_empty_and_overlong_input() -> None:
    with pytest.raises(ToolError, match="empty"):
        evaluate("   ")
    with pytest.raises(ToolError, match="longer than"):
        evaluate("1" * (MAX_INPUT_CHARS + 1))


def test_a_growing_product_chain_is_stopped() -> None:
    # Each factor is allowed; the product passes the size bound and is refused.
    factor = "(2 ** 1000)"
    with pytest.raises(ToolError, match="too large"):
        evaluate(" * ".join([factor] * 5))


@given(st.integers(-(10**12), 10**12), st.integers(-(10**12), 10**12))
def test_integer_arithmetic_matches_python(a: int, b: int) -> None:
    assert evaluate(f"{a} + {b}") == a + b
    assert evaluate(f"({a}) * ({b})") == a * b
    assert evaluate(f"{a} - ({b})") == a - b


@given(st.floats(allow_nan=False, allow_infinity=False, width=64))
def test_format_number_round_trips_to_twelve_digits(value: float) -> None:
    shown = float(format_number(value))
    assert shown == pytest.approx(value, rel=1e-11, abs=1e-300)
