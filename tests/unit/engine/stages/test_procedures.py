"""The path procedures with a scripted model: what each one calls, and what it answers."""

import json
from collections.abc import Iterator, Mapping

import pytest

from engine.adapters.llm.scripted import ScriptedLLM
from engine.domain.procedures import SAMPLE_TEMPERATURE, SAMPLES, vote
from engine.domain.records import (
    PROGRAM_TOOL,
    ChatMessage,
    ChatOptions,
    LLMRequest,
    PathDefinition,
    ToolResult,
)
from engine.errors import LLMTimeoutError
from engine.stages.procedures import PLAN_SYSTEM, AnswerSettings, run_procedure

QUERY = "A bus has 30 seats and 12 are empty. How many are taken?"
SETTINGS = AnswerSettings(max_tokens=64, timeout_s=5.0)


def path(procedure: str) -> PathDefinition:
    prompt = "Question: {query}\nFollow the plan.\nEnd with a line 'Answer: <answer>'."
    return PathDefinition(procedure, procedure.title(), "a path", prompt, procedure=procedure)


def replies(*texts: str) -> ScriptedLLM:
    pending: Iterator[str] = iter(texts)
    return ScriptedLLM(lambda request: next(pending))


class ProgramToolBox:
    """Answers the program tool with `result`; records what it ran."""

    def __init__(self, result: ToolResult) -> None:
        self.result = result
        self.runs: list[tuple[str, str]] = []

    def names(self) -> list[str]:
        return ["none", PROGRAM_TOOL]

    def describe(self) -> Mapping[str, str]:
        return {PROGRAM_TOOL: "runs a program"}

    def run(self, name: str, argument: str, timeout_s: float) -> ToolResult:
        self.runs.append((name, argument))
        return self.result


def test_self_consistency_samples_three_times_with_distinct_seeds_and_the_majority_wins() -> None:
    llm = replies("So 17.\nAnswer: 17", "Answer: 18", "30 - 12 = 18\nAnswer: 18")
    result = run_procedure(llm, path("self_consistency"), QUERY, SETTINGS)
    assert result.text == "Answer: 18"  # the first sample that carries the majority answer
    assert len(llm.requests) == SAMPLES == 3
    assert all(r.temperature == SAMPLE_TEMPERATURE > 0 for r in llm.requests)
    assert len({r.seed for r in llm.requests}) == 3
    assert all(r.purpose == "answer" for r in llm.requests)
    assert result.outputs["majority_answer"] == "18"
    assert result.outputs["majority_share"] == pytest.approx(2 / 3)
    assert result.outputs["samples"] == 3


def test_a_tie_goes_to_the_answer_sampled_first() -> None:
    llm = replies(
        "Answer: 17", "Answer: 18", "no idea, really, I could not say what it might be now"
    )
    result = run_procedure(llm, path("self_consistency"), QUERY, SETTINGS)
    assert result.text == "Answer: 17"
    assert result.outputs["majority_share"] == pytest.approx(1 / 3)
    assert vote(["Answer: b", "Answer: a", "Answer: a", "Answer: b"]).answer == "b"


def test_self_consistency_takes_fewer_samples_when_the_budget_leaves_fewer_calls() -> None:
    llm = replies("Answer: 18", "Answer: 17")
    settings = AnswerSettings(max_tokens=64, timeout_s=5.0, calls_left=2)
    result = run_procedure(llm, path("self_consistency"), QUERY, settings)
    assert len(llm.requests) == 2
    assert (result.outputs["samples"], result.outputs["samples_wanted"]) == (2, SAMPLES)


def test_a_failed_sample_casts_no_vote_and_only_all_failing_raises() -> None:
    answers: Iterator[str | Exception] = iter([LLMTimeoutError("slow"), "Answer: 18", "Answer: 18"])

    def script(request: LLMRequest) -> str:
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    result = run_procedure(ScriptedLLM(script), path("self_consistency"), QUERY, SETTINGS)
    assert (result.text, result.outputs["majority_share"]) == ("Answer: 18", 1.0)
    assert result.outputs["sample_faults"] == ["LLMTimeoutError: slow"]

    def failing(request: LLMRequest) -> str:
        raise LLMTimeoutError("down")

    with pytest.raises(LLMTimeoutError):
        run_procedure(ScriptedLLM(failing), path("self_consistency"), QUERY, SETTINGS)


def test_the_streamed_self_consistency_answer_is_the_winner_sent_whole() -> None:
    pieces: list[str] = []
    settings = AnswerSettings(max_tokens=64, timeout_s=5.0, on_text=pieces.append)
    llm = replies("Answer: 1", "Answer: 2", "Answer: 2")
    run_procedure(llm, path("self_consistency"), QUERY, settings)
    assert pieces == ["Answer: 2"]


def test_plan_then_solve_makes_two_calls_and_the_plan_reaches_the_solve_call() -> None:
    llm = replies("1. Take the seats.\n2. Subtract the empty ones.", "30 - 12\nAnswer: 18")
    result = run_procedure(llm, path("plan_solve"), QUERY, SETTINGS)
    plan_request, solve_request = llm.requests
    assert (plan_request.purpose, solve_request.purpose) == ("plan", "answer")
    assert plan_request.messages[0] == ChatMessage("system", PLAN_SYSTEM)
    assert QUERY in plan_request.messages[-1].content
    assert "2. Subtract the empty ones." in solve_request.messages[-1].content
    assert solve_request.messages[-1].content.index("Plan:") < solve_request.messages[
        -1
    ].content.index(QUERY)
    assert result.text == "30 - 12\nAnswer: 18"
    assert result.outputs["plan"] == "1. Take the seats.\n2. Subtract the empty ones."


def test_plan_then_solve_skips_the_plan_when_only_the_answer_call_is_left() -> None:
    llm = replies("Answer: 18")
    settings = AnswerSettings(max_tokens=64, timeout_s=5.0, calls_left=1)
    result = run_procedure(llm, path("plan_solve"), QUERY, settings)
    (request,) = llm.requests
    assert request.purpose == "answer"
    assert "Plan:" not in request.messages[-1].content
    assert result.outputs["plan"] is None
    assert "plan_skipped" in result.outputs


def test_a_failed_plan_call_still_answers() -> None:
    calls: Iterator[str | Exception] = iter([LLMTimeoutError("slow"), "Answer: 18"])

    def script(request: LLMRequest) -> str:
        reply = next(calls)
        if isinstance(reply, Exception):
            raise reply
        return reply

    result = run_procedure(ScriptedLLM(script), path("plan_solve"), QUERY, SETTINGS)
    assert result.text == "Answer: 18"
    assert result.outputs["plan_fault"] == "LLMTimeoutError: slow"


def test_the_program_path_answers_from_the_program_output_without_an_answer_call() -> None:
    llm = ScriptedLLM(lambda request: json.dumps({"program": "print(30 - 12)"}))
    toolbox = ProgramToolBox(ToolResult(True, "The program printed 18\nAnswer: 18", None, 0.0))
    settings = AnswerSettings(max_tokens=64, timeout_s=5.0, toolbox=toolbox)
    result = run_procedure(llm, path("program"), QUERY, settings)
    assert [r.purpose for r in llm.requests] == ["program"]
    assert toolbox.runs == [(PROGRAM_TOOL, "print(30 - 12)")]
    assert result.text.endswith("Answer: 18")
    program_run = result.outputs["program_run"]
    assert isinstance(program_run, dict)
    assert program_run["output"] == "18"
    assert "fallback" not in result.outputs


def test_a_failed_program_falls_back_to_one_answer_call_with_the_paths_prompt() -> None:
    def script(request: LLMRequest) -> str:
        if request.purpose == "program":
            return json.dumps({"program": "print(1 / 0)"})
        return "Answer: 18"

    llm = ScriptedLLM(script)
    toolbox = ProgramToolBox(ToolResult(False, "", "ZeroDivisionError", 0.0))
    settings = AnswerSettings(max_tokens=64, timeout_s=5.0, toolbox=toolbox)
    result = run_procedure(llm, path("program"), QUERY, settings)
    assert [r.purpose for r in llm.requests] == ["program", "answer"]
    assert "Follow the plan." in llm.requests[-1].messages[-1].content
    assert (result.text, result.outputs["fallback"]) == ("Answer: 18", "ZeroDivisionError")


def test_the_program_path_without_a_toolbox_or_calls_answers_directly() -> None:
    llm = replies("Answer: 18")
    result = run_procedure(llm, path("program"), QUERY, SETTINGS)
    assert [r.purpose for r in llm.requests] == ["answer"]
    assert result.outputs["fallback"] == "no toolbox: answered directly"
    toolbox = ProgramToolBox(ToolResult(True, "Answer: 18", None, 0.0))
    llm = replies("Answer: 18")
    settings = AnswerSettings(max_tokens=64, timeout_s=5.0, toolbox=toolbox, calls_left=1)
    run_procedure(llm, path("program"), QUERY, settings)
    assert [r.purpose for r in llm.requests] == ["answer"]
    assert toolbox.runs == []


def test_the_bare_arm_sends_the_question_alone_with_no_system_message() -> None:
    llm = replies("18")
    settings = AnswerSettings(max_tokens=64, timeout_s=5.0, brief="a seed brief")
    result = run_procedure(llm, path("bare"), QUERY, settings)
    (request,) = llm.requests
    assert request.messages == (ChatMessage("user", QUERY),)
    assert all(message.role != "system" for message in request.messages)
    assert (result.text, result.outputs) == ("18", {"procedure": "bare"})


def test_the_bare_arm_keeps_a_chat_clients_own_turns() -> None:
    llm = replies("18")
    history = (ChatMessage("user", "Call me Ada."), ChatMessage("assistant", "Noted."))
    settings = AnswerSettings(max_tokens=64, timeout_s=5.0, chat=ChatOptions(history=history))
    run_procedure(llm, path("bare"), QUERY, settings)
    assert llm.requests[0].messages == (*history, ChatMessage("user", QUERY))


def test_a_single_path_makes_one_answer_call() -> None:
    llm = replies("Answer: 18")
    result = run_procedure(llm, path("single"), QUERY, SETTINGS)
    assert len(llm.requests) == 1
    assert llm.requests[0].messages[0].role == "system"
    assert result.outputs == {  # how the one reply ended (stages.answer_text), for the card
        "procedure": "single",
        "echoed_lines": 0,
        "copied_lines": 0,
        "degenerate": None,
        "loop": None,
        "cut_off": False,
        "finish_reason": "stop",
    }


def test_an_unknown_procedure_is_refused_when_the_path_is_built() -> None:
    with pytest.raises(ValueError, match="unknown procedure 'vote'"):
        PathDefinition("x", "X", "d", "{query}", procedure="vote")
