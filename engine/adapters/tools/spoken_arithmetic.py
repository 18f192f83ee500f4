"""Arithmetic said in words, read as a whole: "What is 7 less than 20?" is `20 - 7`, or nothing.

The question, after `reading.normalise` (number words as digits by text2num), must be an
arithmetic phrase from start to end, with at most a lead-in ("what is", "calculate") and a
closing "?" or "=". Phrases are rewritten into symbols innermost first until nothing but
arithmetic is left; a single word that no phrase consumed means the question is not pure
arithmetic, and the reader refuses it (the word-problem reader may still take it).

Why a phrase list and not a library: no kept library reads English arithmetic phrases ("7 less
than 20", "the difference between 9 and 4") into expressions; text2num does the number words,
and `calculator.evaluate` the arithmetic. Each phrase fixes the order of its operands, which is
what the old first-match reader got wrong ("7 less than 20" is 20 - 7, not 7 - 20).

>>> read_expression("What is 7 less than 20?").understood
'(20 - 7)'
>>> read_expression("what's fifteen percent of 80").understood
'(15 / 100 * 80)'
"""

import re

from engine.adapters.tools.reading import Reading, normalise
from engine.errors import ToolRefusalError

__all__ = ["MAX_INPUT_CHARS", "read_expression"]

MAX_INPUT_CHARS = 200

# An operand: a number, or a group an earlier rewrite already closed in parentheses.
_N = r"(-?\d+(?:\.\d+)?|\((?:[^()]|\([^()]*\))*\))"
_LEAD = re.compile(
    r"^(?:(?:so|ok|okay|quick question|please)[,:]?\s+)?"
    r"(?:what number is|what(?:'s| is| are| does| do)|whats|calculate|compute|evaluate|work out"
    r"|find|solve|how much is|tell me|what do you get (?:if you|when you)"
    r"|can you (?:calculate|compute|tell me))"
    r"\s+(?:the value of\s+)?",
)
_TAIL = re.compile(
    r"(?:\s*(?:equals?|=|make|come to|give me|please|is what|equals what))*[\s?.!:]*$"
)

# (pattern, template): innermost phrases first; the template names the operands in order.
_PHRASES = tuple(
    (re.compile(pattern), template)
    for pattern, template in (
        (rf"(?:the )?square root of {_N}", "sqrt({0})"),
        (rf"{_N} squared", "({0} ** 2)"),
        (rf"{_N} cubed", "({0} ** 3)"),
        (rf"{_N} to the power of {_N}", "({0} ** {1})"),
        (rf"{_N} ?(?:%|percent) of {_N}", "({0} / 100 * {1})"),
        (rf"(\d+)/(\d+) of {_N}", "({0} / {1} * {2})"),
        (rf"(?:twice|double) {_N}", "(2 * {0})"),
        (rf"triple {_N}", "(3 * {0})"),
        (rf"half of {_N}", "({0} / 2)"),
        (rf"the sum of {_N} and {_N}", "({0} + {1})"),
        (rf"the difference between {_N} and {_N}", "({0} - {1})"),
        (rf"the product of {_N} and {_N}", "({0} * {1})"),
        (rf"the quotient of {_N} (?:and|by) {_N}", "({0} / {1})"),
        (rf"{_N} (?:less|fewer) than {_N}", "({1} - {0})"),
        (rf"{_N} more than {_N}", "({1} + {0})"),
        (rf"subtract {_N} from {_N}", "({1} - {0})"),
        (rf"take {_N} (?:away )?from {_N}", "({1} - {0})"),
        (rf"add {_N} (?:and|to) {_N}", "({0} + {1})"),
        (rf"multiply {_N} (?:by|and) {_N}", "({0} * {1})"),
        (rf"divide {_N} by {_N}", "({0} / {1})"),
    )
)
# Operator words become symbols in place, so the usual precedence applies ("3 x 4 minus 2" is
# 3 * 4 - 2); only the phrases above, which fix their operands' order, add parentheses.
_OPERATOR_WORDS = tuple(
    (re.compile(pattern), symbol)
    for pattern, symbol in (
        (r"(?<=[\d)]) (?:multiplied by|times|x) (?=[-\d(]|sqrt)", " * "),
        (r"(?<=[\d)]) divided by (?=[-\d(]|sqrt)", " / "),
        (r"(?<=[\d)]) plus (?=[-\d(]|sqrt)", " + "),
        (r"(?<=[\d)]) minus (?=[-\d(]|sqrt)", " - "),
    )
)
_SYMBOLS = str.maketrans({"×": "*", "÷": "/", "^": "**"})
# What may remain once every phrase is rewritten: numbers, operators, parentheses and the
# functions `calculator.evaluate` allows.
_ARITHMETIC = re.compile(
    r"(?:\d+(?:\.\d+)?(?:e[-+]?\d+)?|[-+*/%().,\s]|\b(?:sqrt|abs|round|floor|ceil|log|log10"
    r"|log2|exp|sin|cos|tan|min|max|factorial|pi)\b)+"
)
_OPERATION = re.compile(r"[-+*/%]|\b[a-z]+\(")


def read_expression(question: str) -> Reading:
    """The whole question as one arithmetic expression; `ToolRefusalError` if any of it is not.

    >>> read_expression("Subtract 45 from two hundred.").understood
    '(200 - 45)'
    >>> read_expression("What is 7 less than 20 apples?")
    Traceback (most recent call last):
    ...
    engine.errors.ToolRefusalError: not pure arithmetic: 'apples' is not part of an arithmetic ...
    """
    if len(question) > MAX_INPUT_CHARS:
        raise ToolRefusalError(f"input is longer than {MAX_INPUT_CHARS} characters")
    text = normalise(question).translate(_SYMBOLS)
    body = _TAIL.sub("", _LEAD.sub("", text, count=1))
    if not body.strip():
        raise ToolRefusalError("no operation: the question is empty")
    rewritten, phrases = _rewrite(body)
    for pattern, symbol in _OPERATOR_WORDS:
        rewritten = pattern.sub(symbol, rewritten)
    if not _ARITHMETIC.fullmatch(rewritten):
        stray = re.findall(r"[a-z]+(?:'[a-z]+)?", re.sub(r"\b[a-z]+\(", "", rewritten))
        shown = repr(stray[0]) if stray else "a symbol"
        raise ToolRefusalError(f"not pure arithmetic: {shown} is not part of an arithmetic phrase")
    if phrases and not _one_group(rewritten):
        raise ToolRefusalError("a phrase mixed with other operations reads more than one way")
    if not _OPERATION.search(rewritten.replace("(-", "(")):
        raise ToolRefusalError("no operation: the question names a number but nothing to do")
    expression = re.sub(r"\s+", " ", rewritten).strip()
    # The whole text is consumed: the lead-in, the phrases and the closing marks.
    return Reading(text, expression, spans=((0, len(text)),))


def _rewrite(body: str) -> tuple[str, int]:
    """Rewrite phrases into symbols until none matches; also how many phrases were rewritten."""
    for count in range(MAX_INPUT_CHARS):  # each pass consumes a phrase's words: this ends
        for pattern, template in _PHRASES:
            match = pattern.search(body)
            if match:
                phrase = template.format(*match.groups())
                body = body[: match.start()] + phrase + body[match.end() :]
                break
        else:
            return body, count
    return body, MAX_INPUT_CHARS


def _one_group(expression: str) -> bool:
    """Whether `expression` is one parenthesised group or call, with nothing outside it: "7 less
    than 20 plus 1" could be (20 - 7) + 1 or 20 - (7 + 1), and is refused."""
    text = re.sub(r"^[a-z0-9]*\(", "(", expression.strip())
    depth = 0
    for index, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and index < len(text) - 1:
            return False
    return text.startswith("(")
