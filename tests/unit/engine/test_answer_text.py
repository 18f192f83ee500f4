"""What the answer stage keeps of a reply: the echoed prompt goes; a loop, a cut-off are named."""

from engine.adapters.llm.scripted import ScriptedLLM
from engine.domain.checkers import check_answer
from engine.domain.models import ToolRun
from engine.domain.records import PathDefinition
from engine.stages.answer import answer_messages, write_answer
from engine.stages.answer_text import Loop, find_loop, keep_answer
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
