"""Stage 8 as a procedure: what the chosen path arm does to answer (`engine.domain.procedures`).

`run_procedure` answers with the path's procedure and returns the answer text with what the
trace should keep of how it was reached (samples and their agreement, the plan, the program).
Every call goes through the decision's metered LLM, so the decision's cost counts them all.

A procedure spends what the decision's budget leaves after `reserve` calls (the referee's): self-
consistency takes fewer samples, plan-and-solve skips the plan, and the program skips its retry
or itself, rather than leaving the decision without an answer or a judge.

>>> from engine.adapters.llm.scripted import ScriptedLLM
>>> from engine.domain.records import PathDefinition
>>> bare = PathDefinition("bare", "Bare", "The question alone.", "{query}", procedure="bare")
>>> llm = ScriptedLLM(lambda request: "Answer: 4")
>>> run_procedure(llm, bare, "2 + 2?", AnswerSettings(max_tokens=64, timeout_s=5.0)).text
'Answer: 4'
>>> llm.requests[0].messages
(ChatMessage(role='user', content='2 + 2?'),)
"""

from dataclasses import dataclass, field

from engine.domain.models import ToolRun
from engine.domain.ports import LLM, TextSink, ToolBox
from engine.domain.procedures import OPTION_PROCEDURES, SAMPLE_TEMPERATURE, SAMPLES, vote
from engine.domain.records import ChatMessage, ChatOptions, Cost, LLMRequest, PathDefinition
from engine.domain.trace import LLM_FAULTS
from engine.errors import InvalidQueryError
from engine.stages.answer import answer_messages, with_chat, write_answer
from engine.stages.option_procedures import OptionSettings, run_option_procedure
from engine.stages.program import solve_with_program
from engine.stages.prompting import neutralise

__all__ = ["PLAN_SYSTEM", "AnswerSettings", "ProcedureResult", "run_procedure"]

PLAN_SYSTEM = (
    "Write a short plan for answering the question: at most three numbered steps, one line "
    "each. Do not answer the question."
)
PLAN_MAX_TOKENS = 96
# Distinct seeds per sample: the same seed would make a seeded backend repeat one sample.
SAMPLE_SEED_BASE = 1000


@dataclass(frozen=True)
class AnswerSettings:
    """What the answer calls take from the engine's configuration and the caller."""

    max_tokens: int
    timeout_s: float
    brief: str | None = None
    tool_run: ToolRun | None = None
    chat: ChatOptions | None = None
    on_text: TextSink | None = None
    calls_left: int | None = None  # after the reserve; None when the budget has no call limit
    toolbox: ToolBox | None = None
    tool_timeout_s: float = 10.0
    options: OptionSettings | None = None  # the question's options, for the option procedures


@dataclass(frozen=True)
class ProcedureResult:
    """The answer and what the trace keeps of how the procedure reached it."""

    text: str
    outputs: dict[str, object] = field(default_factory=dict)
    # What was spent besides the chat calls metered on the LLM: option likelihood's scoring pass
    cost: Cost = field(default_factory=Cost)


def run_procedure(
    llm: LLM, path: PathDefinition, query: str, settings: AnswerSettings
) -> ProcedureResult:
    """Answer `query` with `path`'s procedure; raises what the answer call raises when no
    answer could be had (an `LLMError` or `BudgetExceededError`), like the single call."""
    procedure = path.procedure
    if procedure in OPTION_PROCEDURES:
        return _option(llm, path, query, settings)
    if procedure == "bare":
        return ProcedureResult(_bare(llm, query, settings), {"procedure": "bare"})
    if procedure == "self_consistency":
        return _self_consistency(llm, path, query, settings)
    if procedure == "plan_solve":
        return _plan_solve(llm, path, query, settings)
    if procedure == "program":
        return _program(llm, path, query, settings)
    return _single(llm, path, query, settings, {"procedure": "single"})


def _option(
    llm: LLM, path: PathDefinition, query: str, settings: AnswerSettings
) -> ProcedureResult:
    """One of the question's options (`engine.stages.option_procedures`), sent whole."""
    if settings.options is None:  # the chooser never offers these arms without options
        raise InvalidQueryError(f"the path {path.arm_id!r} answers with an option: give options")
    text, outputs, cost = run_option_procedure(
        llm,
        path,
        query,
        settings.options,
        timeout_s=settings.timeout_s,
        calls_left=settings.calls_left,
        tool_run=settings.tool_run,
    )
    if settings.on_text is not None:
        settings.on_text(text)
    return ProcedureResult(text, outputs, cost)


def _single(
    llm: LLM,
    path: PathDefinition,
    query: str,
    settings: AnswerSettings,
    outputs: dict[str, object],
) -> ProcedureResult:
    """One answer call; the trace keeps how its reply ended (echoed prompt, loop, cut-off)."""
    kept = write_answer(
        llm,
        path,
        query,
        settings.brief,
        settings.tool_run,
        max_tokens=settings.max_tokens,
        timeout_s=settings.timeout_s,
        chat=settings.chat,
        on_text=settings.on_text,
    )
    return ProcedureResult(kept.text, {**outputs, **kept.notes()})


def _request(
    messages: tuple[ChatMessage, ...],
    settings: AnswerSettings,
    *,
    temperature: float | None = None,
    seed: int | None = None,
) -> LLMRequest:
    """An answer request as `write_answer` makes it; `temperature` replaces the chat's."""
    chat = settings.chat
    if temperature is None:
        temperature = chat.temperature if chat and chat.temperature is not None else 0.0
    return LLMRequest(
        messages=messages,
        max_tokens=chat.max_tokens if chat and chat.max_tokens else settings.max_tokens,
        temperature=temperature,
        timeout_s=settings.timeout_s,
        purpose="answer",
        seed=seed,
    )


def _answer_messages(
    path: PathDefinition, query: str, settings: AnswerSettings
) -> tuple[ChatMessage, ...]:
    messages = answer_messages(path, query, settings.brief, settings.tool_run)
    return with_chat(messages, settings.chat)


def _call(llm: LLM, request: LLMRequest, on_text: TextSink | None) -> str:
    if on_text is not None:
        return llm.stream(request, on_text).text.strip()
    return llm.complete(request).text.strip()


def _bare(llm: LLM, query: str, settings: AnswerSettings) -> str:
    """The question alone: no system text of ours, no template, no seed, no tool output.

    A chat client's own turns and instructions stay (they are the caller's, not a strategy).
    """
    chat = settings.chat
    messages: tuple[ChatMessage, ...] = (ChatMessage("user", query),)
    if chat is not None:
        instructions = (ChatMessage("system", chat.instructions),) if chat.instructions else ()
        messages = (*instructions, *chat.history, *messages)
    return _call(llm, _request(messages, settings), settings.on_text)


def _self_consistency(
    llm: LLM, path: PathDefinition, query: str, settings: AnswerSettings
) -> ProcedureResult:
    """`SAMPLES` answers at `SAMPLE_TEMPERATURE`, distinct seeds; the majority wins (`vote`).

    A failed sample casts no vote; the samples taken are the ones voted on. Only when no sample
    came back does the last fault propagate.
    """
    wanted = SAMPLES if settings.calls_left is None else max(1, min(SAMPLES, settings.calls_left))
    messages = _answer_messages(path, query, settings)
    texts: list[str] = []
    faults: list[str] = []
    for index in range(wanted):
        request = _request(
            messages, settings, temperature=SAMPLE_TEMPERATURE, seed=SAMPLE_SEED_BASE + index
        )
        try:
            texts.append(llm.complete(request).text.strip())
        except LLM_FAULTS as error:
            if not texts and index == wanted - 1:
                raise
            faults.append(f"{type(error).__name__}: {error}")
    result = vote(texts)
    winner = texts[result.index]
    if settings.on_text is not None:  # the winner is known only after the vote: sent whole
        settings.on_text(winner)
    return ProcedureResult(
        winner,
        {
            "procedure": "self_consistency",
            "samples_wanted": SAMPLES,
            "samples": len(texts),
            "sample_answers": [_short(text) for text in texts],
            "majority_answer": result.answer,
            "majority_share": result.share,
            "sample_faults": faults,
        },
    )


def _plan_solve(
    llm: LLM, path: PathDefinition, query: str, settings: AnswerSettings
) -> ProcedureResult:
    """A plan call, then the path's prompt with the plan before it; without a call to spare for
    the plan (or when the plan call fails), the solve call alone."""
    outputs: dict[str, object] = {"procedure": "plan_solve"}
    plan = None
    if settings.calls_left is not None and settings.calls_left < 2:
        outputs["plan_skipped"] = "no call left for a plan besides the answer"
    else:
        request = LLMRequest(
            messages=(
                ChatMessage("system", PLAN_SYSTEM),
                ChatMessage("user", f"Question: {query}"),
            ),
            max_tokens=PLAN_MAX_TOKENS,
            timeout_s=settings.timeout_s,
            purpose="plan",
        )
        try:
            plan = llm.complete(request).text.strip() or None
        except LLM_FAULTS as error:
            outputs["plan_fault"] = f"{type(error).__name__}: {error}"
    outputs["plan"] = plan
    messages = _answer_messages(path, query, settings)
    if plan is not None:
        *head, last = messages
        # The plan comes from the query alone (no retrieved text), but it is still model output:
        # neutralised like any text that enters a prompt.
        content = f"Plan:\n{neutralise(plan, limit=600)}\n\n{last.content}"
        messages = (*head, ChatMessage(last.role, content))
    return ProcedureResult(_call(llm, _request(messages, settings), settings.on_text), outputs)


def _program(
    llm: LLM, path: PathDefinition, query: str, settings: AnswerSettings
) -> ProcedureResult:
    """The program tool as the path: the answer is the program's printed result.

    Fallback (no toolbox, no call to spare for a program beside the fallback, or no result):
    one answer call with the path's prompt, as a single-call path would make.
    """
    outputs: dict[str, object] = {"procedure": "program"}
    calls_left = settings.calls_left
    if settings.toolbox is None:
        outputs["fallback"] = "no toolbox: answered directly"
    elif calls_left is not None and calls_left < 2:
        outputs["fallback"] = "no call left for a program besides the fallback answer"
    else:
        ran = solve_with_program(
            llm,
            settings.toolbox,
            query,
            tool_timeout_s=settings.tool_timeout_s,
            llm_timeout_s=settings.timeout_s,
            # a retry only while the fallback answer stays affordable
            retries=1 if calls_left is None or calls_left >= 3 else 0,
        )
        outputs["program_run"] = ran.trace_outputs()
        if ran.output is not None and ran.output.strip():
            text = f"A program the model wrote printed {ran.output}.\nAnswer: {ran.output}"
            if settings.on_text is not None:
                settings.on_text(text)
            return ProcedureResult(text, outputs)
        outputs["fallback"] = ran.tool_run.error or "the program printed no result"
    return _single(llm, path, query, settings, outputs)


def _short(text: str) -> str:
    return text if len(text) <= 300 else text[:299] + "…"
