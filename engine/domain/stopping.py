"""When a free-text generation should stop early: a finished answer line, or a loop.

Why this exists: the embedded 135M model often runs on after its answer, repeating a digit
("17.7777...") or a sentence twenty times until the token limit. Each wasted token costs time on
a small CPU (a decision took ~10 s), and a looping seed brief poisons the answer that reads it.
Two rules stop such a generation as soon as it is clear nothing useful follows:

- the answer line is complete: a line "Answer: <something>" followed by a line break (every
  strategy template ends with that line, and nothing after it is read), or a closed
  `\\boxed{...}`, the final answer of a model trained on mathematics (Qwen2.5-Coder asked the
  bare question ends that way, and the answer's extractor reads it as the final answer);
- the text loops: its tail is one chunk repeated at least `MIN_REPEATS` times, over at least
  `MIN_LOOP_CHARS` characters (so "1000" or "aa" never counts as a loop).

Both are pure functions of the text so far; the local adapter polls them after each token, and
the seed check uses `repetition_start` to reject a degenerate brief.

>>> answer_line_done("Step 1: add.\\nAnswer: 12\\n")
True
>>> answer_line_done("Answer: 12")
False
>>> trim_repetition("The rule applies. The rule applies. The rule applies. The rule applies.")
'The rule applies. The rule applies.'
"""

import re

__all__ = ["answer_line_done", "repetition_start", "should_stop", "trim_repetition"]

MIN_REPEATS = 3
MIN_LOOP_CHARS = 24
MAX_PERIOD = 200  # characters; a looping sentence of the small model is well under this
_WINDOW = 4 * MAX_PERIOD
_ANSWER_LINE = re.compile(r"(?im)^[ \t*#>_-]*(?:final[ \t]+)?answer[ \t*_]*:[ \t*_]*\S[^\n]*\n")
_BOXED = re.compile(r"\\boxed\{(?:[^{}]|\{[^{}]*\})+\}")  # one level of inner braces


def answer_line_done(text: str) -> bool:
    """Does `text` hold a complete "Answer: ..." line (ended by a line break), or a closed
    `\\boxed{...}`?

    >>> answer_line_done("so the total is $\\\\boxed{\\\\frac{1}{2}}")
    True
    >>> answer_line_done("\\\\boxed{4")
    False
    """
    return _ANSWER_LINE.search(text) is not None or _BOXED.search(text) is not None


def _loop_period(text: str) -> int | None:
    """The shortest period p such that the tail of `text` is one chunk repeated; None if none."""
    text = text[-_WINDOW:]  # polled after every token: look at the tail only
    size = len(text)
    for period in range(1, min(MAX_PERIOD, size // MIN_REPEATS) + 1):
        chunk = text[size - period :]
        repeats = 1
        while text.endswith(chunk * (repeats + 1)):
            repeats += 1
            if repeats * period > size:
                break
        if repeats >= MIN_REPEATS and repeats * period >= MIN_LOOP_CHARS:
            return period
    return None


def repetition_start(text: str) -> int | None:
    """Where the looping tail of `text` starts after its first copy; None if it does not loop.

    `text[:repetition_start(text)]` keeps the text with one copy of the repeated chunk.

    >>> repetition_start("x = 17.77777777777777777777777777")
    8
    >>> repetition_start("Answer: 1000") is None
    True
    """
    stripped = text.rstrip()
    period = _loop_period(stripped)
    if period is None:
        return None
    chunk = stripped[len(stripped) - period :]
    start = len(stripped)
    while stripped[:start].endswith(chunk):
        start -= period
    return start + period


def trim_repetition(text: str) -> str:
    """`text` with a looping tail cut to one copy of its chunk (unchanged if it does not loop)."""
    start = repetition_start(text)
    return text if start is None else text[:start].rstrip()


def should_stop(text: str) -> bool:
    """Stop a free-text generation: its answer line is complete, or it has started to loop."""
    return answer_line_done(text) or repetition_start(text) is not None
