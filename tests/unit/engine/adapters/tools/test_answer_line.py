"""The answer line: an exact tool's single value, restated as the line the answer prompt wants."""

import pytest

from engine.adapters.tools import ToolRegistry, standard_tools
from engine.adapters.tools.answer_line import AnswerLine, answer_line
from engine.adapters.tools.number_list import NumberList
from engine.adapters.tools.text_facts import TextFacts
from engine.adapters.tools.units import UnitConverter
from engine.domain.records import ToolAnswer
from engine.errors import ToolError


@pytest.mark.parametrize(
    ("sentence", "value"),
    [
        ("The first letter of 'kitten' is 'k'.", "k"),
        ("The letter 'r' occurs 3 times in 'strawberry'.", "3"),
        ("7 kilometres = 7000 metres", "7000"),
        ("The sequence adds 4 each time, so the next number is 23.", "23"),
        ("Ascending: 1, 2, 3.", None),  # a list is no single value
        ("The sequence adds 1 each time, so the next 3 numbers are 5, 6, 7.", None),
    ],
)
def test_the_value_is_what_the_checker_reads_and_lists_get_none(
    sentence: str, value: str | None
) -> None:
    assert answer_line(sentence) == value


def test_the_wrapper_keeps_the_tools_name_description_and_errors() -> None:
    wrapped = AnswerLine(TextFacts())
    assert (wrapped.name, wrapped.description) == (TextFacts().name, TextFacts().description)
    answer = wrapped.run("How many letters are in 'banana'?")
    assert isinstance(answer, ToolAnswer)
    assert answer.output.endswith("\nAnswer: 6")
    assert (answer.value, answer.fully_parsed) == ("6", True)
    with pytest.raises(ToolError):
        wrapped.run("Who wrote Hamlet?")


def test_a_list_answer_is_left_as_the_tool_said_it() -> None:
    question = "Sort 3, 1, 2 in ascending order."
    assert AnswerLine(NumberList()).run(question) == NumberList().run(question)


def test_the_standard_tools_answer_with_the_line_except_the_calculator() -> None:
    registry = ToolRegistry(standard_tools())
    # The first conversion loads pint and quantulum3 (seconds on a busy machine).
    assert registry.run("units", "Convert 2 hours to minutes", 120.0).output.endswith("Answer: 120")
    assert registry.run("calculator", "2 + 2", 5.0).output == "2 + 2 = 4"


def test_a_result_not_read_whole_gets_no_line() -> None:
    class Unsure:
        name = "unsure"
        description = "states a value it did not read whole"

        def run(self, argument: str) -> ToolAnswer:
            return ToolAnswer("The answer is 4.", "4", "guessed", fully_parsed=False)

    answer = AnswerLine(Unsure()).run("anything")
    assert isinstance(answer, ToolAnswer)
    assert answer.output == "The answer is 4."


def test_the_line_states_the_tools_value_not_a_number_read_back_from_its_sentence() -> None:
    # The units tool once wrote "10 kilometer ** 2", and the line read the exponent: "Answer: 2".
    class Trailing:
        name = "trailing"
        description = "a sentence whose last number is not its value"

        def run(self, argument: str) -> ToolAnswer:
            return ToolAnswer("7 widget ** 2 + 3 widget ** 2 = 10 widget ** 2", "10", "read", True)

    answer = AnswerLine(Trailing()).run("anything")
    assert isinstance(answer, ToolAnswer)
    assert answer.output.endswith("\nAnswer: 10")


def test_the_answer_line_keeps_the_wrapped_tools_inline_promise() -> None:
    assert AnswerLine(NumberList()).inline
    assert AnswerLine(TextFacts()).inline
    assert not AnswerLine(UnitConverter()).inline  # it loads its libraries: a worker runs it


def test_the_wrapped_tools_set_up_is_passed_on() -> None:
    # Without it a tool's libraries loaded inside its first deadline (the units tool's, under
    # load, overran it and decisions differed from run to run).
    prepared: list[str] = []

    class Slow(TextFacts):
        def prepare(self) -> None:
            prepared.append("yes")

    AnswerLine(Slow()).prepare()
    assert prepared == ["yes"]
