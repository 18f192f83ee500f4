"""What the answer stage keeps of a reply: the echoed prompt goes; a loop, a cut-off are named."""

import pytest

from engine.adapters.llm.scripted import ScriptedLLM
from engine.domain.checkers import check_answer
from engine.domain.models import ToolRun
from engine.domain.records import PathDefinition
from engine.stages.answer import answer_messages, write_answer
from engine.stages.answer_text import (
    Loop,
    _line_scaffold,
    _placeholder_pattern,
    find_loop,
    keep_answer,
)
from templates import load_templates

REFINE = next(
    PathDefinition.from_template(t) for t in load_templates() if t.id == "estimate_then_refine"
)
QUERY = "What is 17 * 23?"
TOOL = ToolRun(tool="calculator", argument=QUERY, ok=True, output="17 * 23 = 391")
# What SmolLM2-135M wrote for the README's example (the probe in the report): the prompt back,
# with the template's "End with a line 'Answer: <answer>'" filled in with the question's sum.
ECHOING_REPLY = (
    "Question: What is 17 * 23?\n\n17 * 23 = 391.\n\n"
    "Guess: write a quick first answer.\n"
    "Test: check the guess against the facts in the question.\n"
    "End with a line 'Answer: 17 * 23'"
)


def _prompt(tool_run: ToolRun | None = TOOL) -> str:
    return "\n".join(m.content for m in answer_messages(REFINE, QUERY, None, tool_run))


def test_an_echoed_prompt_is_removed_and_the_answer_scores_right() -> None:
    kept = keep_answer(ECHOING_REPLY, _prompt(), finish_reason="stop", tokens=40, max_tokens=300)
    assert kept.text == "17 * 23 = 391."
    assert kept.echoed == 4
    assert check_answer(kept.text, 391, "numeric") == 1.0
    assert check_answer(ECHOING_REPLY, 391, "numeric") == 0.0  # what the checker saw before


def test_the_tools_output_and_the_models_own_lines_stay() -> None:
    reply = "17 * 23 = 391\nSo 17 times 23 is 391.\nAnswer: 391"
    kept = keep_answer(reply, _prompt(), finish_reason="stop", tokens=20, max_tokens=300)
    assert kept.text == reply
    assert kept.echoed == 0


def test_a_label_the_model_runs_on_from_is_cut_from_its_line() -> None:
    prompt = "The calculator tool worked this out exactly:\n<tool_output>\n42\n</tool_output>"
    reply = "The calculator tool worked this out exactly: 42.\nAnswer: 42"
    kept = keep_answer(reply, prompt, finish_reason="stop", tokens=20, max_tokens=300)
    assert kept.text == "42.\nAnswer: 42"


def test_short_prompt_lines_are_not_taken_for_an_echo() -> None:
    # "Answer: <answer>" alone would match every real answer line.
    kept = keep_answer("Answer: 7", "Answer: <answer>", finish_reason=None, tokens=2, max_tokens=9)
    assert kept.text == "Answer: 7"


def test_a_loop_is_named_with_its_phrase_and_count() -> None:
    assert find_loop("The capital is Canberra. " + "Canberra. " * 16) == Loop("Canberra", 17)
    assert find_loop("Canberra " * 6) == Loop("Canberra", 6)
    assert find_loop("Let me think.\n" + "I am not sure.\n" * 4) == Loop("I am not sure", 4)
    assert find_loop("x = 5\nso x = 5\nx = 5, hence 10") is None  # working may repeat a little
    assert find_loop("Answer: 42") is None


def test_a_cut_off_is_known_from_the_finish_reason_or_the_token_count() -> None:
    def cut(reason: str | None, tokens: int) -> bool:
        return keep_answer("a b", "", finish_reason=reason, tokens=tokens, max_tokens=8).cut_off

    assert cut("length", 3)
    assert not cut("stop", 8)  # the provider's word wins over the count
    assert cut(None, 8)
    assert not cut(None, 7)


def test_write_answer_records_how_the_reply_ended() -> None:
    llm = ScriptedLLM(lambda request: "Canberra " * 20)
    kept = write_answer(llm, REFINE, QUERY, None, None, max_tokens=20, timeout_s=5.0)
    assert kept.cut_off
    assert kept.finish_reason == "length"
    assert kept.notes()["loop"] == {"phrase": "Canberra", "times": 20}


SEARCH_RESULT = ToolRun(
    tool="local_search",
    argument="eggs",
    ok=True,
    output=(
        "[1] Working backwards › When to use it (thinkpath-corpus/strategies/backwards.md)\n"
        "Start from the goal and undo each step in reverse order until the start is reached."
    ),
)


def test_a_search_result_pasted_as_the_answer_is_not_kept() -> None:
    """The eggs question fell back to local_search and the answer was the passage itself."""
    pasted = (
        "Working backwards › When to use it (thinkpath-corpus/strategies/backwards.md)\n"
        "Start from the goal and undo each step in reverse order until the start is reached."
    )
    llm = ScriptedLLM(lambda request: pasted)
    kept = write_answer(
        llm, REFINE, "How many eggs?", None, SEARCH_RESULT, max_tokens=100, timeout_s=5
    )
    assert kept.text == ""
    assert kept.notes()["copied_lines"] == 2
    # in other words, mixed with the model's own: only the copy goes
    own = (
        "She had 3 eggs left.\nstart from the goal and undo each step in reverse order.\nAnswer: 3"
    )
    kept = write_answer(
        ScriptedLLM(lambda request: own),
        REFINE,
        "How many eggs?",
        None,
        SEARCH_RESULT,
        max_tokens=100,
        timeout_s=5,
    )
    assert kept.text == "She had 3 eggs left.\nAnswer: 3"
    # an exact result read whole is what the answer is made of: repeating it stays
    exact = write_answer(
        ScriptedLLM(lambda request: "17 * 23 = 391\nAnswer: 391"),
        REFINE,
        QUERY,
        None,
        TOOL.model_copy(update={"fully_parsed": True}),
        max_tokens=100,
        timeout_s=5,
    )
    assert exact.text == "17 * 23 = 391\nAnswer: 391"


@pytest.mark.parametrize(
    ("reply", "shown", "named"),
    [
        ("Answer: 1234567890", "Answer: 1234567890", "a run of digits (1234567890)"),
        ("So the total is\nAnswer: 98765", "So the total is\nAnswer: 98765", "(98765)"),
        ("The answer is 0000000.", "The answer is 0000000.", "(0000000)"),
        ("The answer is: Answer: Tokyo", "Answer: Tokyo", "label written twice"),
        ("Final answer: **Answer:** 12", "**Answer:** 12", "label written twice"),
    ],
)
def test_a_degenerate_answer_is_caught_and_named(reply: str, shown: str, named: str) -> None:
    kept = keep_answer(reply, "Question: q", finish_reason="stop", tokens=5, max_tokens=100)
    assert kept.text == shown
    assert named in (kept.degenerate or "")


@pytest.mark.parametrize(
    "reply", ["Answer: 391", "Answer: 100000", "Answer: 2024", "Answer: 1,234"]
)
def test_ordinary_numbers_are_not_degenerate(reply: str) -> None:
    kept = keep_answer(reply, "Question: q", finish_reason="stop", tokens=5, max_tokens=100)
    assert kept.degenerate is None


def test_a_prompt_line_with_a_placeholder_is_compiled_once_and_a_plain_line_never() -> None:
    _placeholder_pattern.cache_clear()
    _line_scaffold.cache_clear()
    prompt = "Question: What is 6 * 7?\nEnd with a line 'Answer: <answer>'."
    for _ in range(3):  # three decisions of one template, each with its own question
        kept = keep_answer(
            "Question: What is 6 * 7?\n6 * 7 = 42\nEnd with a line 'Answer: 42'",
            prompt,
            finish_reason="stop",
            tokens=20,
            max_tokens=300,
        )
        assert (kept.text, kept.echoed) == ("6 * 7 = 42", 2)
    assert _placeholder_pattern.cache_info().misses == 1


def test_each_prompt_line_is_read_once_across_decisions() -> None:
    _line_scaffold.cache_clear()
    template = "Work it out step by step.\nEnd with a line 'Answer: <answer>'."
    for number in range(3):  # three decisions of one template, each with its own question
        prompt = f"Question: What is {number} * 7?\n{template}"
        reply = f"Work it out step by step.\n{number} * 7 = {7 * number}"
        kept = keep_answer(reply, prompt, finish_reason="stop", tokens=9, max_tokens=300)
        assert (kept.text, kept.echoed) == (f"{number} * 7 = {7 * number}", 1)
    # the two template lines once, and each decision's question line
    assert _line_scaffold.cache_info().misses == 2 + 3


def test_every_line_copying_a_result_to_check_is_removed() -> None:
    data = "[1] Units (notes/units.md)\nA kilometre is 1000 metres; a mile is 1.609 km."
    reply = "From notes/units.md we know\nA kilometre is 1000 metres; a mile is 1.609 km\n7 km"
    kept = keep_answer(
        reply, "Question: q", finish_reason="stop", tokens=9, max_tokens=300, to_check=data
    )
    assert (kept.text, kept.copied) == ("7 km", 2)
