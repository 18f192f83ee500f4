"""A safe calculator tool: arithmetic parsed with `ast` and walked by hand, never `eval`.

Allowed: numbers, + - * / // % ** (also written ^, × and ÷), parentheses, the constants pi and e,
and the functions listed in `FUNCTIONS`. Everything else is refused with the reason. Questions in
words are read into such expressions first, whole or not at all: `spoken_arithmetic` for phrases
("7 less than 20"), `word_problem` for stories ("has 4 apples and gets 3 more").

Why the work is bounded (a tool thread that overruns cannot be killed; see the registry): input is
at most `MAX_INPUT_CHARS` characters, so the tree is small; a power is refused before it is
computed when its result would exceed `MAX_INT_BITS` bits (integers) or overflow (floats); every
integer result is checked against the same bound, so a chain of products cannot grow past about
the input length times `MAX_INT_BITS`; factorial is limited to `MAX_FACTORIAL`.

>>> Calculator().run("What is (17 + 5) * 3?").provenance
'parsed the whole question and computed (17 + 5) * 3 = 66'
>>> Calculator().run("sqrt(2) ^ 2").output
'sqrt(2) ** 2 = 2'
"""

import ast
import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from engine.adapters.tools.spoken_arithmetic import read_expression
from engine.adapters.tools.word_problem import read_word_problem
from engine.domain.records import ToolAnswer
from engine.errors import ToolError, ToolRefusalError

__all__ = ["FUNCTIONS", "Calculator", "evaluate", "format_number"]

MAX_INPUT_CHARS = 200
MAX_INT_BITS = 4096  # about 1,230 decimal digits: far past any real question
MAX_FACTORIAL = 170  # the largest n whose factorial is still a finite float

Number = int | float


def _factorial(value: Number) -> Number:
    if isinstance(value, float) and not value.is_integer():
        raise ToolError("factorial needs a whole number")
    if not 0 <= value <= MAX_FACTORIAL:
        raise ToolError(f"factorial needs a number from 0 to {MAX_FACTORIAL}")
    return math.factorial(int(value))


FUNCTIONS: dict[str, Callable[..., Number]] = {
    "sqrt": math.sqrt,
    "abs": abs,
    "round": round,
    "floor": math.floor,
    "ceil": math.ceil,
    "log": math.log,
    "log10": math.log10,
    "log2": math.log2,
    "exp": math.exp,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "min": min,
    "max": max,
    "factorial": _factorial,
}
CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e}

_BINARY: dict[type[ast.operator], Callable[[Number, Number], Number]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}
_UNARY: dict[type[ast.unaryop], Callable[[Number], Number]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
}

_SYMBOLS = str.maketrans({"×": "*", "÷": "/", "−": "-", "^": "**"})


def evaluate(expression: str) -> Number:
    """Evaluate an arithmetic expression safely; raise `ToolError` naming what is not allowed.

    >>> evaluate("2 ** 0.5 * 2 ** 0.5")
    2.0000000000000004
    >>> evaluate("__import__('os')")
    Traceback (most recent call last):
    ...
    engine.errors.ToolError: '__import__' is not an allowed function or constant
    """
    if len(expression) > MAX_INPUT_CHARS:
        raise ToolError(f"input is longer than {MAX_INPUT_CHARS} characters")
    source = expression.translate(_SYMBOLS).strip()
    if not source:
        raise ToolError("the expression is empty")
    try:
        tree = ast.parse(source, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError, SystemError):
        # CPython 3.11 raises SystemError ("AST constructor recursion depth mismatch") on a
        # deeply nested input such as "- - - ... 1"; it is a parse failure like the others.
        raise ToolError(f"cannot parse {expression!r} as arithmetic") from None
    try:
        return _checked(_evaluate(tree.body))
    except ZeroDivisionError:
        raise ToolError("division by zero") from None
    except OverflowError:
        raise ToolError("the result is too large") from None
    except (ValueError, TypeError) as error:  # math domain errors, e.g. sqrt(-1)
        raise ToolError(f"math error: {error}") from None
    except RecursionError:
        raise ToolError("the expression is nested too deeply") from None


def _evaluate(node: ast.expr) -> Number:
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ToolError(f"{value!r} is not a number")
        return _checked(value)
    if isinstance(node, ast.BinOp):
        return _binary(node)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_evaluate(node.operand))
    if isinstance(node, ast.Name) and node.id in CONSTANTS:
        return CONSTANTS[node.id]
    if isinstance(node, ast.Name):
        raise ToolError(f"{node.id!r} is not an allowed function or constant")
    if isinstance(node, ast.Call):
        return _call(node)
    if isinstance(node, ast.Tuple):
        raise ToolError("a comma may only separate a function's arguments")
    raise ToolError(f"{type(node).__name__} is not allowed in arithmetic")


def _binary(node: ast.BinOp) -> Number:
    left, right = _evaluate(node.left), _evaluate(node.right)
    if isinstance(node.op, ast.Pow):
        return _checked(_power(left, right))
    binary = _BINARY.get(type(node.op))
    if binary is None:
        raise ToolError(f"the operator {type(node.op).__name__} is not allowed")
    return _checked(binary(left, right))


def _call(node: ast.Call) -> Number:
    if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
        shown = node.func.id if isinstance(node.func, ast.Name) else ast.unparse(node.func)
        raise ToolError(f"{shown!r} is not an allowed function or constant")
    if node.keywords or any(isinstance(arg, ast.Starred) for arg in node.args):
        raise ToolError(f"{node.func.id}() takes plain arguments only")
    if not node.args:
        raise ToolError(f"{node.func.id}() needs an argument")
    return _checked(FUNCTIONS[node.func.id](*(_evaluate(arg) for arg in node.args)))


def _power(base: Number, exponent: Number) -> Number:
    """Compute base ** exponent only when the result is known to stay within bounds."""
    if isinstance(base, int) and isinstance(exponent, int) and exponent >= 0:
        if abs(base) > 1 and exponent * (abs(base).bit_length() - 1) > MAX_INT_BITS:
            raise OverflowError
        exact: int = base**exponent
        return exact
    if base == 0 and exponent < 0:
        raise ZeroDivisionError
    if base < 0 and not float(exponent).is_integer():
        raise ValueError("a negative number to a fractional power is not a real number")
    result: float = float(base) ** float(exponent)  # raises OverflowError, never returns inf
    return result


def _checked(value: Number) -> Number:
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise OverflowError
    if isinstance(value, float) and not math.isfinite(value):
        raise OverflowError
    return value


def format_number(value: Number) -> str:
    """Show a result as a small model reads it best: whole numbers without a decimal point.

    >>> format_number(4.0), format_number(0.1 + 0.2), format_number(-7)
    ('4', '0.3', '-7')
    """
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.12g}"
    return str(value)


@dataclass(frozen=True)
class Calculator:
    """The calculator as a tool: reads the whole question as arithmetic, or refuses it.

    The question is read as spoken arithmetic ("7 less than 20", `spoken_arithmetic`), else as
    a word problem (`word_problem`); each reading must account for the whole question
    (`reading.require_whole`), or the tool raises `ToolRefusalError` naming what it could not read.
    """

    # Pure computation on at most `MAX_INPUT_CHARS` characters: run on the caller's thread
    # (`engine.adapters.tools.registry`).
    inline: ClassVar[bool] = True
    name: str = "calculator"
    description: str = (
        "Evaluates arithmetic exactly, e.g. '(17 + 5) * 3', '2 ^ 10', 'sqrt(2)', "
        "'7 less than 20', or a plain word problem. Give it the question; it answers "
        "'expression = result', or refuses what it cannot read in full."
    )

    def run(self, argument: str) -> ToolAnswer:
        try:
            reading = read_expression(argument)
        except ToolRefusalError as spoken:
            try:
                reading = read_word_problem(argument)
            except ToolRefusalError as story:
                raise ToolRefusalError(f"{spoken}; as a word problem: {story}") from story
            if evaluate(reading.understood) < 0:
                raise ToolRefusalError("the story takes away more than there was") from None
        expression = reading.understood
        value = format_number(evaluate(expression))
        return ToolAnswer(
            output=f"{expression} = {value}",
            value=value,
            provenance=f"parsed the whole question and computed {expression} = {value}",
            fully_parsed=True,
        )
