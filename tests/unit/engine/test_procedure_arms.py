"""Procedures as path arms in the engine: honest cost, the vote in the trace, cost in the reward,
and the program tool run by the pipeline."""

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from engine.adapters.llm.scripted import ScriptedLLM
from engine.domain.budget import Budget
from engine.domain.config import DetourRules, EngineConfig
from engine.domain.pricing import CostPrice, DrawPrice
from engine.domain.records import PROGRAM_TOOL, LLMRequest, ToolResult
from engine.orchestration.facade import Engine
from tests.unit.engine.conftest import REFEREE_OPT_IN, FamilyEmbedder, World

QUERY = "What is 3 + 4?"


@dataclass(frozen=True)
class ProcedureTemplate:
    id: str
    name: str
    description: str
    prompt: str
    procedure: str = "single"
    tags: tuple[str, ...] = ()


ONCE = ProcedureTemplate("digits_once", "Once", "compute once", "STRATEGY=DIGITS\n{query}")
VOTE = ProcedureTemplate(
    "digits_vote", "Vote", "compute thrice", "STRATEGY=DIGITS\n{query}", "self_consistency"
)


class ProgramToolBox:
    """The program tool only; every program prints 7."""

    def __init__(self) -> None:
        self.runs: list[tuple[str, str]] = []

    def names(self) -> list[str]:
        return ["none", PROGRAM_TOOL]

    def describe(self) -> Mapping[str, str]:
        return {PROGRAM_TOOL: "writes and runs a short program"}

    def run(self, name: str, argument: str, timeout_s: float) -> ToolResult:
        self.runs.append((name, argument))
        return ToolResult(True, "The model wrote a program; it printed 7\nAnswer: 7", None, 0.0)


def build(
    world: World,
    llm: ScriptedLLM,
    *,
    templates: list[ProcedureTemplate],
    config: EngineConfig | None = None,
    toolbox: Any = None,
    cold_pulls: float = 2.0,
) -> Engine:
    return Engine(
        llm=llm,
        searcher=world.searcher,
        store=world.store,
        templates=templates,
        embedder=FamilyEmbedder(),
        policy_factory=world.policy_factory(cold_pulls),
        toolbox=toolbox,
        config=config or EngineConfig(seed=5, detour=DetourRules(prob_best_floor=0.0)),
    )


def test_a_self_consistency_arm_counts_every_sample_and_records_its_agreement(world: World) -> None:
    llm = world.llm()
    engine = build(world, llm, templates=[ONCE, VOTE])
    decision = engine.decide(QUERY, force_path="digits_vote")
    purposes = [request.purpose for request in llm.requests]
    assert purposes.count("answer") == 3
    assert decision.cost.calls == len(llm.requests)
    answer = decision.step("answer")
    assert answer.outputs["procedure"] == "self_consistency"
    assert answer.outputs["majority_share"] == 1.0
    assert answer.outputs["majority_answer"] == "7"
    assert answer.outputs["cost"]["calls"] == 3
    assert decision.answer is not None
    assert decision.answer.endswith("Answer: 7")


def test_a_procedure_leaves_the_referee_its_call_within_a_tight_budget(world: World) -> None:
    llm = world.llm()
    weights = {**EngineConfig().source_weights, "referee": REFEREE_OPT_IN}
    config = EngineConfig(seed=5, budget=Budget(max_calls=2), source_weights=weights)
    engine = build(world, llm, templates=[ONCE, VOTE], config=config)
    decision = engine.decide(QUERY, force_path="digits_vote")
    purposes = [request.purpose for request in llm.requests]
    # the samples get the one call the referee leaves of two
    assert purposes == ["answer", "referee"]
    assert decision.cost.calls == 2
    assert decision.step("answer").outputs["samples"] == 1


def test_a_referee_that_will_not_judge_holds_no_call_back(world: World) -> None:
    llm = world.llm()
    config = EngineConfig(seed=5, budget=Budget(max_calls=2))  # the shipped prior: 0
    engine = build(world, llm, templates=[ONCE, VOTE], config=config)
    decision = engine.decide(QUERY, force_path="digits_vote")
    purposes = [request.purpose for request in llm.requests]
    # never measured, so never asked: the samples get the call a referee would have kept
    assert purposes == ["answer", "answer"]
    assert decision.step("referee").reason == "skipped"
    assert decision.step("answer").outputs["samples"] == 2


def test_with_a_price_the_cheaper_of_two_equally_right_arms_wins(world: World) -> None:
    """Both arms always answer right; the vote costs two more calls. Priced, the learner's
    statistics are net of cost and the policy comes to prefer the single call; the stored
    outcomes keep the raw reward."""

    def run(price: CostPrice) -> tuple[Engine, list[str]]:
        here = World()
        config = EngineConfig(
            seed=5,
            detour=DetourRules(prob_best_floor=0.0),
            cost_price=price,
            draw_price=DrawPrice(0.0),  # cost in the reward alone
        )
        engine = build(here, here.llm(), templates=[ONCE, VOTE], config=config)
        chosen = [
            engine.decide(QUERY, checker=here.checker_for(QUERY)).path.arm_id for _ in range(40)
        ]
        return engine, chosen

    def path_means(engine: Engine) -> dict[str, float]:
        return {arm.arm_id: arm.mean_reward or 0.0 for arm in engine.arms() if arm.role == "path"}

    price = CostPrice(per_call=0.1)
    engine, chosen = run(price)
    outcomes = [o for o in engine.outcome_log() if o.source == "checker"]
    assert {o.reward for o in outcomes} == {1.0}  # the log keeps what the checker said
    learned: dict[str, list[float]] = {"digits_once": [], "digits_vote": []}
    for outcome in outcomes:  # what each arm learned: 1 net of 0.1 per call its decision made
        calls = engine.get_decision(outcome.decision_id).cost.calls
        learned[outcome.choices["path"]].append(price.net(1.0, calls=calls, seconds=0.0))
    means = path_means(engine)
    for arm, rewards in learned.items():
        assert means[arm] == pytest.approx(sum(rewards) / len(rewards))
    assert means["digits_once"] > means["digits_vote"]
    assert chosen[20:].count("digits_once") > chosen[20:].count("digits_vote")

    free, free_chosen = run(CostPrice())
    assert path_means(free) == {"digits_once": 1.0, "digits_vote": 1.0}  # unpriced: a tie
    assert free_chosen[20:].count("digits_once") < chosen[20:].count("digits_once")


def test_a_price_changes_the_checkpoint_fingerprint_only_when_it_is_on(world: World) -> None:
    from engine.orchestration.checkpoints import fingerprint

    policies = {"path": world.policy_factory()("path", ["a", "b"], 3)}
    arms = {"path": ["a", "b"]}
    plain = fingerprint(policies, arms, 3)
    assert fingerprint(policies, arms, 3, price=CostPrice()) == plain
    assert fingerprint(policies, arms, 3, price=CostPrice(per_call=0.05)) != plain


def test_the_program_tool_is_run_with_a_program_the_model_wrote(world: World) -> None:
    def script(request: LLMRequest) -> str:
        if request.purpose == "program":
            return json.dumps({"program": "print(3 + 4)"})
        return world.script(request)

    world.rating_tool = PROGRAM_TOOL
    llm = ScriptedLLM(script)
    toolbox = ProgramToolBox()
    engine = build(world, llm, templates=[ONCE], toolbox=toolbox, cold_pulls=50)
    decision = engine.decide(QUERY)
    assert decision.tool.arm_id == PROGRAM_TOOL
    assert toolbox.runs == [(PROGRAM_TOOL, "print(3 + 4)")]
    step = decision.step("tool")
    assert step.outputs["program"] == "print(3 + 4)"
    assert step.outputs["output"] == "7"
    assert step.outputs["fully_parsed"] is False
    assert decision.tool_run is not None
    assert decision.tool_run.ok
    program_calls = [r for r in llm.requests if r.purpose == "program"]
    assert len(program_calls) == 1
    assert decision.cost.calls == len(llm.requests)  # the program call is metered


def test_a_procedure_added_at_run_time_is_adopted_by_another_process(world: World) -> None:
    first = build(world, world.llm(), templates=[ONCE])
    added = first.add_template(VOTE)
    assert added.procedure == "self_consistency"
    (stored,) = [r for r in first.path_records() if r.arm_id == "digits_vote"]
    assert stored.definition["procedure"] == "self_consistency"
    llm = world.llm()
    second = build(world, llm, templates=[ONCE])  # the same store: adopts the catalogue
    decision = second.decide(QUERY, force_path="digits_vote")
    assert [r.purpose for r in llm.requests].count("answer") == 3
    assert decision.step("answer").outputs["procedure"] == "self_consistency"
