"""Models as arms: the engine learns per kind of query which model of its catalogue answers.

Two scripted models: `local/small` answers only arithmetic right, `local/big` answers both kinds
right but takes 0.1 s more a call. With the draw price on, arithmetic ends on the small model (as
right, and cheaper) and spelling on the big one (only it is right). The seconds are the meter's
wall clock, as for any model (`MeteredLLM`); no test asserts one.
"""

import functools
import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from engine.adapters.llm.scripted import ScriptedLLM
from engine.domain.catalogue import ModelCatalogue, ModelEntry
from engine.domain.config import DetourRules, EngineConfig
from engine.domain.pricing import DrawPrice
from engine.domain.records import LLMRequest, LLMResponse, ToolResult
from engine.errors import ConfigError, UnknownModelError
from engine.orchestration.facade import Engine
from tests.unit.engine.conftest import TEMPLATES, FamilyEmbedder, World, solve

ARITHMETIC = "What is the sum {a} + {b}?"
SPELLING = "What is the first letter of {word}?"
WORDS = ("apple", "kite", "zebra", "moon", "river", "stone")


class Timed:
    """A scripted model whose every call takes `seconds` more (a stand-in's own are noise)."""

    def __init__(self, model: str, script: Callable[[LLMRequest], str], seconds: float) -> None:
        self.inner = ScriptedLLM(script, model=model)
        self.model = model
        self.seconds = seconds

    @property
    def requests(self) -> list[LLMRequest]:
        return self.inner.requests

    def complete(self, request: LLMRequest) -> LLMResponse:
        time.sleep(self.seconds)
        return self.inner.complete(request)

    def stream(self, request: LLMRequest, on_text: Callable[[str], None]) -> LLMResponse:
        time.sleep(self.seconds)
        return self.inner.stream(request, on_text)


def answering(world: World, *, spells: bool) -> Callable[[LLMRequest], str]:
    """A model that answers whatever path it is given: arithmetic always, spelling if `spells`."""

    def script(request: LLMRequest) -> str:
        if request.purpose != "answer":
            return world.script(request)
        prompt = request.messages[-1].content
        query = next(line for line in prompt.splitlines() if line.startswith("What is"))
        right = spells or "sum" in query
        return f"Answer: {solve(query) if right else 'unsure'}"

    return script


def two_models(world: World) -> tuple[Timed, Timed]:
    return (
        Timed("local/small", answering(world, spells=False), 0.0),
        Timed("local/big", answering(world, spells=True), 0.1),
    )


def engine_on(world: World, models: tuple[Timed, ...], *, price: float = 0.5) -> Engine:
    return Engine(
        models=ModelCatalogue([ModelEntry(model.model, model) for model in models]),
        searcher=world.searcher,
        store=world.store,
        templates=TEMPLATES,
        embedder=FamilyEmbedder(),
        policy_factory=world.policy_factory(),
        config=EngineConfig(
            seed=5, detour=DetourRules(prob_best_floor=0.0), draw_price=DrawPrice(price)
        ),
    )


def query(kind: str, i: int) -> str:
    if kind == "arithmetic":
        return ARITHMETIC.format(a=i, b=i + 3)
    return SPELLING.format(word=WORDS[i % len(WORDS)])


def play(engine: Engine, kind: str, decisions: int) -> list[str]:
    chosen = []
    for i in range(decisions):
        text = query(kind, i)
        decision = engine.decide(text, checker=functools.partial(_check, text=text))
        assert decision.model is not None
        chosen.append(decision.model.arm_id)
    return chosen


def _check(answer: str, *, text: str) -> float:
    return float(answer.strip().endswith(f"Answer: {solve(text)}"))


def test_each_kind_ends_on_the_model_that_pays_for_it() -> None:
    world = World()
    engine = engine_on(world, two_models(world))
    arithmetic = play(engine, "arithmetic", 40)
    spelling = play(engine, "spelling", 40)
    # arithmetic: both right, the big one charged 0.05 more a draw; spelling: only it is right
    assert arithmetic[-15:].count("local/small") >= 11, arithmetic
    assert spelling[-15:].count("local/big") >= 11, spelling
    # both explored first: each model was tried on each kind
    assert set(arithmetic[:10]) == {"local/small", "local/big"}


def test_without_the_price_the_faster_model_is_not_preferred() -> None:
    world = World()
    engine = engine_on(world, two_models(world), price=0.0)
    arithmetic = play(engine, "arithmetic", 40)
    # both are right: a tie that the draw alone settles, never the seconds
    assert 5 <= arithmetic[-20:].count("local/small") <= 15, arithmetic


def test_every_call_of_a_decision_runs_on_its_model() -> None:
    world = World()
    small, big = two_models(world)
    engine = engine_on(world, (small, big))
    for i in range(12):
        before = (len(small.requests), len(big.requests))
        decision = engine.decide(query("spelling", i))
        assert decision.model is not None
        calls = (len(small.requests) - before[0], len(big.requests) - before[1])
        on_chosen, on_other = calls if decision.model.arm_id == "local/small" else calls[::-1]
        assert on_chosen == decision.cost.calls >= 1
        assert on_other == 0


def test_a_pinned_model_answers_with_propensity_one_and_teaches_the_model_role() -> None:
    world = World()
    small, big = two_models(world)
    engine = engine_on(world, (small, big))
    text = query("spelling", 0)
    decision = engine.decide(text, model="local/big", checker=functools.partial(_check, text=text))
    assert decision.model is not None
    assert (decision.model.arm_id, decision.model.propensity, decision.model.reason) == (
        "local/big",
        1.0,
        "forced",
    )
    assert decision.step("model").outputs["why"] == "pinned by the client"
    assert small.requests == []
    big_row = next(r for r in engine.arms() if r.role == "model" and r.arm_id == "local/big")
    assert (big_row.outcomes, big_row.mean_reward) == (1, 1.0)


def test_an_unknown_model_is_refused_before_any_work() -> None:
    world = World()
    small, big = two_models(world)
    engine = engine_on(world, (small, big))
    with pytest.raises(UnknownModelError, match="local/small"):
        engine.decide(query("arithmetic", 1), model="local/huge")
    assert small.requests == big.requests == []


def test_the_decision_record_logs_the_model_and_its_propensity() -> None:
    world = World()
    engine = engine_on(world, two_models(world))
    decision = engine.decide(query("arithmetic", 2))
    record = world.store.get_decision(decision.id)
    assert decision.model is not None
    assert record.choices["model"] == decision.model.arm_id
    assert record.propensities["model"] == decision.model.propensity
    assert 0.0 < decision.model.propensity <= 1.0
    step = decision.step("model")
    assert set(step.outputs["propensities"]) == {"local/small", "local/big"}


def test_a_new_kind_starts_from_what_the_kinds_like_it_learned() -> None:
    """The model role's policy is the path policy (pooled Thompson): a kind's P(best) for a
    model moves with its neighbours' evidence before its own first outcome."""
    world = World()
    engine = engine_on(world, two_models(world), price=0.0)
    play(engine, "spelling", 30)
    snapshot = engine.snapshot()
    assert snapshot["roles"]["model"]["policy"] == "pooled_thompson"
    rows = {r["arm_id"]: r for r in snapshot["roles"]["model"]["arms"]}
    assert rows["local/big"]["mean_reward"] > rows["local/small"]["mean_reward"]


def test_a_restart_replays_the_model_role_from_the_log() -> None:
    world = World()
    engine = engine_on(world, two_models(world))
    play(engine, "spelling", 10)
    before = {(r.arm_id, r.pulls, r.mean_reward) for r in engine.arms() if r.role == "model"}
    again = engine_on(world, two_models(world))
    after = {(r.arm_id, r.pulls, r.mean_reward) for r in again.arms() if r.role == "model"}
    assert before == after
    assert sum(pulls for _arm, pulls, _mean in after) == 10


def test_the_arms_counted_on_one_model_add_up_and_survive_a_restart() -> None:
    world = World()
    engine = engine_on(world, two_models(world), price=0.0)
    play(engine, "spelling", 16)
    every = {(r.role, r.arm_id): r for r in engine.arms()}
    small, big = (
        {(r.role, r.arm_id): r for r in engine.arms(model=model)}
        for model in ("local/small", "local/big")
    )
    assert {arm for role, arm in small if role == "model"} == {"local/small"}
    for (role, arm), row in every.items():
        if role in ("path", "tool"):  # each decision counted on the one model that answered it
            assert row.pulls == pytest.approx(small[(role, arm)].pulls + big[(role, arm)].pulls)
    right = [r.mean_reward for (role, _arm), r in big.items() if role == "path" and r.pulls]
    wrong = [r.mean_reward for (role, _arm), r in small.items() if role == "path" and r.pulls]
    assert set(right) == {1.0}  # only the big model spells
    assert set(wrong) == {0.0}
    again = engine_on(world, two_models(world))
    assert {(r.role, r.arm_id, r.pulls) for r in again.arms(model="local/small")} == {
        (r.role, r.arm_id, r.pulls) for r in small.values()
    }
    with pytest.raises(UnknownModelError):
        engine.arms(model="local/huge")


def test_the_catalogue_refuses_what_it_cannot_hold() -> None:
    llm: Any = ScriptedLLM(lambda _request: "Answer: 1")
    with pytest.raises(ConfigError, match="empty"):
        ModelCatalogue([])
    with pytest.raises(ConfigError, match="more than once"):
        ModelCatalogue([ModelEntry("local/a", llm), ModelEntry("local/a", llm)])


class ProgramBox:
    """The program tool alone, recording each program it is asked to run."""

    def __init__(self) -> None:
        self.runs: list[str] = []

    def names(self) -> list[str]:
        return ["none", "program"]

    def describe(self) -> dict[str, str]:
        return {"program": "writes and runs a short program"}

    def run(self, name: str, argument: str, timeout_s: float) -> ToolResult:
        self.runs.append(argument)
        return ToolResult(True, "7", None, 0.0)


def test_the_program_model_writes_the_program_whatever_model_answers() -> None:
    world = World()
    small, big = two_models(world)
    world.overrides["program"] = lambda _request: json.dumps({"program": "print(3 + 4)"})
    box = ProgramBox()
    engine = Engine(
        models=ModelCatalogue([ModelEntry(model.model, model) for model in (small, big)]),
        searcher=world.searcher,
        store=world.store,
        templates=TEMPLATES,
        embedder=FamilyEmbedder(),
        policy_factory=world.policy_factory(),
        toolbox=box,
        config=EngineConfig(
            seed=5,
            detour=DetourRules(prob_best_floor=0.0),
            draw_price=DrawPrice(0.0),
            program_model="local/big",
        ),
    )
    programs = []
    for i in range(30):
        decision = engine.decide(query("arithmetic", i), model="local/small")
        if decision.tool.arm_id.startswith("program"):
            programs.append(decision)
    assert programs, "the tool policy never drew the program tool in 30 decisions"
    for decision in programs:
        written = [step for step in decision.trace if step.stage == "tool"]
        assert written[-1].inputs["model"] == "local/big"
    wrote = [r for r in small.requests if r.purpose == "program"]
    assert wrote == []
    assert len([r for r in big.requests if r.purpose == "program"]) == len(programs)
