"""A tool wrapper that ends an exact tool's sentence with the line the answer prompt asks for.

Why: every template asks the model to end with "Answer: <answer>", and the embedded 135M model
copies a line in that shape far more reliably than it picks the value out of a sentence. On the
replay suite (`python -m experiments.tool_copy`, 6 tasks x 4 templates per family, results in
`docs/benchmarks.md`) the text tool's right first letters reached the answer in 3 of 24 answers
as a sentence and 18 of 24 with the line; unit conversions 12 -> 22 of 24.

The line states the tool's own value (`ToolAnswer.value`), never a number read back from its
sentence: "7 kilometer ** 2 + 3 kilometer ** 2 = 10 kilometer ** 2" once ended with the exponent,
and a line read from it said "Answer: 2". A result not read whole gets no line, and neither does
a sentence that lists several numbers ("the next three numbers are 5, 6, 7", a sorted list): one
value would misstate it. A plain-text tool's output (no `ToolAnswer`) has only its sentence, so
its line is what the engine's own checker reads from it (`extract_final_answer`).

>>> from engine.adapters.tools.units import UnitConverter
>>> print(AnswerLine(UnitConverter()).run("Convert 3 km to metres").output)
3 kilometer = 3000 meter
Answer: 3000
"""

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from engine.domain.checkers import extract_final_answer
from engine.domain.ports import Tool
from engine.domain.records import ToolAnswer

__all__ = ["AnswerLine", "answer_line", "stated_value"]

_NUMBER_LIST = re.compile(r"\d\s*,\s*-?\d")


def stated_value(sentence: str) -> str:
    """The answer a tool's sentence states, as a person would write it: "yes"/"no" for a
    yes-or-no fact, the list after a colon for a sorted list, else `answer_line`'s value.

    >>> stated_value("Yes, 'level' is a palindrome."), stated_value("Ascending: 1, 2, 3.")
    ('yes', '1, 2, 3')
    """
    head = sentence.split(",", 1)[0].strip().lower()
    if head in ("yes", "no"):
        return head
    if _NUMBER_LIST.search(sentence):
        return re.split(r":\s+|\bare\s+", sentence)[-1].strip().rstrip(".")
    return answer_line(sentence) or sentence


def answer_line(sentence: str) -> str | None:
    """The single value `sentence` states, or None when it states a list or nothing readable.

    >>> answer_line("The first letter of 'kitten' is 'k'."), answer_line("Ascending: 1, 2, 3.")
    ('k', None)
    """
    if _NUMBER_LIST.search(sentence):
        return None
    return extract_final_answer(sentence)


@dataclass(frozen=True)
class AnswerLine:
    """`tool`, with "Answer: <value>" after its output when the output states one value."""

    tool: Tool

    @property
    def name(self) -> str:
        return self.tool.name

    @property
    def description(self) -> str:
        return self.tool.description

    @property
    def inline(self) -> bool:
        """The wrapped tool's (`engine.adapters.tools.registry`): the line adds no waiting."""
        return getattr(self.tool, "inline", False) is True

    @property
    def precheck(self) -> Callable[[str], object] | None:
        """The wrapped tool's early refusal, if it has one (`engine.adapters.tools.registry`):
        the line is added to answers only, so a refusal is the tool's own, and so is its word
        that a run is bounded enough for the caller's thread."""
        return getattr(self.tool, "precheck", None)

    def prepare(self) -> None:
        """The wrapped tool's one-time set-up, if it has one: without it the units libraries
        loaded inside the first deadline, which a loaded machine could overrun (a decision
        then differed from run to run)."""
        prepare = getattr(self.tool, "prepare", None)
        if prepare is not None:
            prepare()

    def run(self, argument: str) -> str | ToolAnswer:
        found = self.tool.run(argument)
        if isinstance(found, ToolAnswer):
            # Only a result read whole is exact; a list (no single value) gets no line.
            listed = _NUMBER_LIST.search(found.output) or _NUMBER_LIST.search(found.value)
            if not (found.fully_parsed and found.value) or listed:
                return found
            return replace(found, output=f"{found.output}\nAnswer: {found.value}")
        value = answer_line(found)
        return f"{found}\nAnswer: {value}" if value else found
