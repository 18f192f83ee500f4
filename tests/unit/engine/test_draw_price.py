"""Cost at the path draw: each path charged its measured seconds on the kind, counted once per
decision, carried by replay and checkpoints alike, shown in the trace; the posterior untouched."""

import itertools
import time
from typing import Any

import numpy as np
import pytest

from engine.adapters.llm.scripted import ScriptedLLM
from engine.adapters.store.memory import InMemoryStore
from engine.domain.budget import MeteredLLM
from engine.domain.catalogue import ModelCatalogue, ModelEntry
from engine.domain.config import DetourRules, EngineConfig
from engine.domain.guarded_llm import GuardedLLM
from engine.domain.pricing import DrawPrice
from engine.domain.records import LearnedOutcome, LLMRequest
from engine.errors import ConfigError
from engine.orchestration.facade import Engine
from engine.orchestration.learner import Learner
from engine.orchestration.path_seconds import PathSeconds
from engine.orchestration.views import read_view
from engine.settings import load_settings
from tests.unit.engine.conftest import FamilyEmbedder, World
from tests.unit.engine.test_procedure_arms import ONCE, VOTE, ProcedureTemplate

QUERY = "What is 3 + 4?"
FAST = ProcedureTemplate("digits_fast", "Fast", "compute at once", "STRATEGY=DIGITS\n{query}")
SLOW = ProcedureTemplate("digits_slow", "Slow", "compute slowly", "STRATEGY=DIGITS SLOW\n{query}")
SLOW_SECONDS = 0.08  # what the scripted model waits on the slow path's prompt
CONTEXT = (1.0, 0.0)
ROLE_ARMS = {"path": ["p"], "tool": ["none", "local_search", "calculator"]}


def timed_llm(world: World) -> ScriptedLLM:
    """The test world's model, which takes `SLOW_SECONDS` on the slow path: both are right."""

    def script(request: LLMRequest) -> str:
        if any("SLOW" in message.content for message in request.messages):
            time.sleep(SLOW_SECONDS)
        return world.script(request)

    return ScriptedLLM(script)


def build(world: World, price: float, *, store: Any = None, every: int = 0) -> Engine:
    config = EngineConfig(
        seed=5,
        detour=DetourRules(prob_best_floor=0.0),
        draw_price=DrawPrice(price),
        checkpoint_every=every,
    )
    return Engine(
        llm=timed_llm(world),
        searcher=world.searcher,
        store=store or world.store,
        templates=[FAST, SLOW],
        embedder=FamilyEmbedder(),
        policy_factory=world.policy_factory(),
        config=config,
    )


def play(engine: Engine, world: World, decisions: int, *, forced: int = 3) -> list[str]:
    """`forced` decisions on each path in turn (both timed and right), then `decisions` drawn."""
    check = world.checker_for(QUERY)
    for _ in range(forced):
        for path in ("digits_fast", "digits_slow"):
            engine.decide(QUERY, checker=check, force_path=path)
    return [engine.decide(QUERY, checker=check).path.arm_id for _ in range(decisions)]


def test_of_two_equally_right_paths_the_faster_wins_the_draws() -> None:
    priced, free = World(), World()
    chosen = play(build(priced, 1.0), priced, 30)
    unpriced = play(build(free, 0.0), free, 30)
    # a charge of 0.08 for the slow path's 0.08 s, against a tie without the price
    assert chosen[10:].count("digits_fast") >= 17
    assert 5 <= unpriced.count("digits_fast") <= 25


def test_the_draw_leaves_the_posterior_to_accuracy_and_says_what_it_charged(world: World) -> None:
    engine = build(world, 1.0)
    play(engine, world, 12)
    decision = engine.decide(QUERY, checker=world.checker_for(QUERY))
    charges = decision.step("selection").inputs["charges"]
    assert charges["digits_slow"] > charges["digits_fast"] + 0.5 * SLOW_SECONDS
    means = {row.arm_id: row.mean_reward for row in engine.arms() if row.role == "path"}
    assert set(means.values()) == {1.0}  # what was learned is the raw reward, not net of time
    candidates = {c.arm_id: c for c in decision.candidates}
    assert decision.path.propensity == pytest.approx(
        candidates[decision.path.arm_id].propensity, abs=1e-4
    )  # the logged propensity is the charged draw's


def test_paths_alike_to_the_nearest_10_ms_are_charged_alike_and_drawn_without_a_price(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert DrawPrice(1.0).charges({"a": 0.0004, "b": 0.0049, "c": 0.012}) == {
        "a": 0.0,
        "b": 0.0,
        "c": 0.01,
    }
    # Calls are timed by a clock that moves 0.1 ms a reading, and the slow path's call reads it
    # ten more times: 1 ms slower, whatever the machine's load.
    readings, defaults = itertools.count(), MeteredLLM.__init__.__kwdefaults__
    assert defaults is not None
    monkeypatch.setitem(defaults, "clock", lambda: next(readings) * 0.0001)

    def script(request: LLMRequest) -> str:
        if any("SLOW" in message.content for message in request.messages):
            for _ in range(10):
                next(readings)
        return world.script(request)

    engine = build(world, 1.0)
    engine._pipeline._models = ModelCatalogue(
        [ModelEntry("scripted", GuardedLLM(ScriptedLLM(script)))]
    )
    play(engine, world, 0)
    learner = engine._book._learner
    decision = engine.decide(QUERY, checker=world.checker_for(QUERY))
    anchor = engine.get_decision(decision.id).context or next(iter(learner.contexts_seen))
    seconds = learner.path_seconds(anchor, ["digits_fast", "digits_slow"])
    assert 0.0 < seconds["digits_fast"] < seconds["digits_slow"] < 0.005
    assert decision.step("selection").inputs["charges"] == {}  # alike: the uncharged draw


def test_a_decision_counts_its_seconds_once_however_many_outcomes_it_has(world: World) -> None:
    engine = build(world, 1.0)
    first = engine.decide(QUERY, checker=world.checker_for(QUERY), force_path="digits_slow")
    for name in ("a", "b"):
        engine.record_outcome(first.id, f"user:{name}", 1.0)
    second = engine.decide(QUERY, checker=world.checker_for(QUERY), force_path="digits_slow")
    learner = engine._book._learner
    anchor = engine.get_decision(second.id).context or next(iter(learner.contexts_seen))
    [mean] = learner.path_seconds(anchor, ["digits_slow"]).values()
    assert mean == pytest.approx((first.cost.seconds + second.cost.seconds) / 2)


def test_replay_and_checkpoints_give_every_engine_the_same_seconds(world: World) -> None:
    store = InMemoryStore()
    engine = build(world, 1.0, store=store, every=5)
    play(engine, world, 6)  # two checkpoints, then two outcomes after the last
    restored = build(world, 1.0, store=store, every=5)
    saved = store.latest_checkpoint
    store.latest_checkpoint = lambda *_: None  # type: ignore[method-assign]
    replayed = build(world, 1.0, store=store)  # the whole log, no checkpoint
    store.latest_checkpoint = saved  # type: ignore[method-assign]
    assert saved("default", restored._book._checkpoints._fingerprint) is not None
    for other in (restored, replayed):
        other._book.refresh()
    states = [e._book._learner.state()["path_seconds"] for e in (engine, restored, replayed)]
    assert states[0] == states[1] == states[2]
    assert states[0]["overall"]["digits_fast"][1] + states[0]["overall"]["digits_slow"][1] == 12


def test_path_seconds_fall_back_to_other_kinds_and_uncount() -> None:
    seconds = PathSeconds()
    seconds.add("sums", "slow", 4.0)
    seconds.add("sums", "slow", 2.0)
    seconds.add("capitals", "slow", 9.0)
    assert seconds.means("sums", ["slow"]) == {"slow": 3.0}  # the kind's own
    assert seconds.means("new", ["slow", "untimed"]) == {"slow": 5.0}  # every kind's
    seconds.add("capitals", "slow", 9.0, sign=-1)
    assert seconds.means("capitals", ["slow"]) == {"slow": 3.0}  # gone there: the others' mean
    again = PathSeconds.restored(seconds.state(list), tuple)
    assert again.state(list) == seconds.state(list)


def test_the_draw_price_is_validated_and_set_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(ConfigError, match="draw price per_second must be in"):
        DrawPrice(1.5)
    assert load_settings().engine_config().draw_price == DrawPrice(0.02)
    monkeypatch.setenv("THINKPATH_DRAW_PRICE_PER_SECOND", "0")
    assert not load_settings().engine_config().draw_price.active


def test_an_untimed_path_is_charged_its_calls_at_the_cheapest_call(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before a three-call path is timed, it is charged three times one call of the cheapest
    timed path: exploration is priced from the kind's second decision (issue 40)."""
    readings, defaults = itertools.count(), MeteredLLM.__init__.__kwdefaults__
    assert defaults is not None
    monkeypatch.setitem(defaults, "clock", lambda: next(readings) * 0.1)  # 0.1 s a call
    engine = Engine(
        llm=world.llm(),
        searcher=world.searcher,
        store=world.store,
        templates=[ONCE, VOTE],
        embedder=FamilyEmbedder(),
        policy_factory=world.policy_factory(),
        config=EngineConfig(
            seed=5, detour=DetourRules(prob_best_floor=0.0), draw_price=DrawPrice(1.0)
        ),
    )
    engine.decide(QUERY, checker=world.checker_for(QUERY), force_path="digits_once")
    decision = engine.decide(QUERY, checker=world.checker_for(QUERY))
    charges = decision.step("selection").inputs["charges"]
    assert charges["digits_vote"] == pytest.approx(3 * charges["digits_once"])
    assert charges["digits_once"] > 0


def test_a_tool_is_charged_the_seconds_of_the_decisions_that_used_it(world: World) -> None:
    factory = world.policy_factory()
    learner = Learner(
        {role: factory(role, arms, 2) for role, arms in ROLE_ARMS.items()},
        context_dim=2,
        history=lambda _decisions: [],
    )
    slow, fast = ("local_search", 6.0), ("none", 0.5)  # passages before the question: slower
    learner.apply(
        [
            LearnedOutcome(
                seq,
                f"d{seq}",
                "default",
                {"path": "p", "tool": tool},
                CONTEXT,
                "checker",
                1.0,
                1.0,
                seconds=seconds,
            )
            for seq, (tool, seconds) in enumerate([slow, fast] * 3, start=1)
        ]
    )
    assert learner.tool_seconds(CONTEXT, ["local_search", "none", "calculator"]) == {
        "local_search": 6.0,
        "none": 0.5,
    }
    rng = np.random.default_rng(3)
    views = [read_view(learner, {}, CONTEXT, DrawPrice(0.1), rng) for _ in range(200)]
    assert views[0].tool_charges == {"local_search": 0.6, "none": 0.05}
    drawn = [view.tool_draw.arm for view in views]
    # equally right, the slow one charged 0.55 more: drawn far less often than the fast one
    assert drawn.count("none") > 3 * drawn.count("local_search"), drawn
    # the logged propensity is the charged draw's
    assert views[0].tool_probabilities[views[0].tool_draw.arm] == views[0].tool_draw.propensity
    free = [read_view(learner, {}, CONTEXT, DrawPrice(0.0), rng) for _ in range(200)]
    assert free[0].tool_charges == {}
    assert [v.tool_draw.arm for v in free].count("local_search") > drawn.count("local_search")
