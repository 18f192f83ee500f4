"""Streaming answers, chat options and forced paths through `Engine.decide`, and the wrappers'
`stream`: metered like a plain call, guarded against foreign errors, a listener's bug surfacing."""

import pytest

from engine.adapters.llm.scripted import ScriptedLLM
from engine.domain.budget import Budget, MeteredLLM
from engine.domain.guarded_llm import GuardedLLM
from engine.domain.models import TraceStep
from engine.domain.records import ChatMessage, ChatOptions, LLMRequest
from engine.errors import (
    BudgetExceededError,
    InvalidQueryError,
    LLMUnavailableError,
    UnknownArmError,
)

QUERY = "What is the sum 3 + 4?"


class Listener:
    def __init__(self) -> None:
        self.events: list[str] = []  # stage names and "token", in the order heard
        self.tokens: list[str] = []

    def on_stage(self, step: TraceStep) -> None:
        self.events.append(step.stage)

    def on_token(self, text: str) -> None:
        self.events.append("token")
        self.tokens.append(text)


def test_the_answer_streams_to_the_listener_while_the_decision_runs(world) -> None:
    listener = Listener()
    decision = world.engine().decide(QUERY, listener=listener)
    assert len(listener.tokens) > 1
    assert "".join(listener.tokens).strip() == decision.answer
    # Tokens arrive after selection and before the answer stage ends: streamed while written.
    first, last = listener.events.index("token"), len(listener.events) - 1
    last -= listener.events[::-1].index("token")
    assert listener.events.index("selection") < first
    assert last < listener.events.index("answer") < listener.events.index("referee")
    assert decision.step("answer").reason == "done"


def test_a_listener_that_raises_is_a_bug_that_surfaces_as_itself(world) -> None:
    class Broken(Listener):
        def on_token(self, text: str) -> None:
            raise ZeroDivisionError("listener bug")

    with pytest.raises(ZeroDivisionError, match="listener bug"):
        world.engine().decide(QUERY, listener=Broken())


def test_chat_options_reach_the_answer_request_only(world) -> None:
    llm = world.llm()
    chat = ChatOptions(
        history=(ChatMessage("user", "Call me Ada."), ChatMessage("assistant", "Noted.")),
        instructions="Be terse.",
        max_tokens=50,
        temperature=0.5,
    )
    decision = world.engine(llm, always_seed=True).decide(QUERY, chat=chat)  # a seed call too
    (answer,) = [r for r in llm.requests if r.purpose == "answer"]
    assert answer.messages[0].content.endswith("Be terse.")
    assert answer.messages[1:3] == chat.history
    assert (answer.max_tokens, answer.temperature) == (50, 0.5)
    others = [r for r in llm.requests if r.purpose != "answer"]
    assert others
    assert all("Be terse." not in m.content for r in others for m in r.messages)
    assert decision.step("answer").inputs == {
        "path": decision.path.arm_id,
        "chat_turns": 2,
        "instructions": True,
    }


def test_a_forced_path_is_taken_with_propensity_one_and_learns_like_any_other(world) -> None:
    engine = world.engine()
    decision = engine.decide(QUERY, force_path="ramble", checker=world.checker_for(QUERY))
    assert (decision.path.arm_id, decision.path.propensity, decision.path.reason) == (
        "ramble",
        1.0,
        "forced",
    )
    ramble = next(a for a in engine.arms() if a.role == "path" and a.arm_id == "ramble")
    assert ramble.outcomes == 1
    assert ramble.mean_reward == 0.0  # the ramble path answers nothing right


def test_forcing_an_unknown_path_or_a_malformed_id_is_refused_before_any_call(world) -> None:
    llm = world.llm()
    engine = world.engine(llm)
    with pytest.raises(UnknownArmError, match="no live path 'nowhere'"):
        engine.decide(QUERY, force_path="nowhere")
    with pytest.raises(InvalidQueryError, match="decision_id"):
        engine.decide(QUERY, decision_id="has spaces")
    assert llm.requests == []


def test_a_named_decision_id_is_the_decision_s_id(world) -> None:
    engine = world.engine()
    assert engine.decide(QUERY, decision_id="chosen-id.1").id == "chosen-id.1"
    assert engine.get_decision("chosen-id.1").query == QUERY


def ask(text: str = "one two three") -> LLMRequest:
    return LLMRequest(messages=(ChatMessage("user", text),), max_tokens=64)


def test_a_metered_stream_counts_like_a_call_and_is_refused_past_the_budget() -> None:
    pieces: list[str] = []
    metered = MeteredLLM(ScriptedLLM(lambda _: "four five six"), Budget(max_calls=1))
    assert metered.stream(ask(), pieces.append).text == "four five six"
    assert pieces == ["four ", "five ", "six"]
    assert (metered.cost.calls, metered.cost.completion_tokens) == (1, 3)
    with pytest.raises(BudgetExceededError):
        metered.stream(ask(), pieces.append)
    assert len(pieces) == 3  # refused before the model was called


def test_a_guarded_stream_turns_foreign_errors_into_llm_errors_but_not_the_sink_s() -> None:
    def broken(_: LLMRequest) -> str:
        raise KeyError("choices")

    with pytest.raises(LLMUnavailableError, match="KeyError"):
        GuardedLLM(ScriptedLLM(broken)).stream(ask(), print)

    def sink(_: str) -> None:
        raise KeyError("the sink's own")

    with pytest.raises(KeyError, match="the sink's own"):
        GuardedLLM(ScriptedLLM(lambda _: "fine")).stream(ask(), sink)
