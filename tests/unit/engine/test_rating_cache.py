"""The rating (where it is on) is a prior: made once per kind and candidate set, then reused.

Each engine here knows both kinds of the test world first (`known_kinds`): a kind's first
decision is never rated, it makes no call besides its answer."""

import pytest

from engine.domain.config import DetourRules, EngineConfig
from engine.errors import ConfigError
from engine.stages.rating import Rating, RatingCache, candidate_fingerprint
from tests.unit.engine.conftest import FakeTemplate, World, known_kinds

ARITHMETIC = [f"What is {a} + {b}?" for a, b in ((3, 4), (12, 9), (7, 8), (20, 22), (5, 5))]
SPELLING = "What is the first letter of apple?"


def _config(**changes: object) -> EngineConfig:
    return EngineConfig(
        seed=5,
        detour=DetourRules(prob_best_floor=0.0),
        rate_cold_paths=True,
        **changes,  # type: ignore[arg-type]
    )


def _rating_steps(decisions: list) -> list[str]:  # type: ignore[type-arg]
    return [d.step("rating").reason for d in decisions]


def test_a_family_is_rated_once_and_its_later_cold_decisions_reuse_the_prior(world: World) -> None:
    world.rating_favourite = "digits"
    llm = world.llm()
    engine = known_kinds(world.engine(llm, cold_pulls=50.0, config=_config()), llm)
    decisions = [engine.decide(query) for query in ARITHMETIC]
    assert [r.purpose for r in llm.requests].count("rate") == 1
    reasons = _rating_steps(decisions)
    assert reasons[0] == "done"
    assert reasons[1:] == ["cached"] * (len(ARITHMETIC) - 1)
    first, later = decisions[0].step("rating"), decisions[-1].step("rating")
    assert later.outputs["scores"] == first.outputs["scores"]
    assert later.calls == 0
    assert decisions[-1].cost.calls == decisions[0].cost.calls - 1
    # the prior still leads the cold pick, as the call's own rating did
    assert {d.path.arm_id for d in decisions[1:]} == {"digits"}


def test_another_family_is_rated_on_its_own(world: World) -> None:
    llm = world.llm()
    engine = known_kinds(world.engine(llm, cold_pulls=50.0, config=_config()), llm)
    engine.decide(ARITHMETIC[0])
    spelled = engine.decide(SPELLING)
    assert spelled.step("rating").reason == "done"
    assert [r.purpose for r in llm.requests].count("rate") == 2


def test_a_changed_candidate_set_is_rated_again(world: World) -> None:
    llm = world.llm()
    engine = known_kinds(world.engine(llm, cold_pulls=50.0, config=_config()), llm)
    engine.decide(ARITHMETIC[0])
    assert engine.decide(ARITHMETIC[1]).step("rating").reason == "cached"
    engine.add_template(FakeTemplate("sketch", "Sketch", "draw it", "STRATEGY=SKETCH\n{query}"))
    again = engine.decide(ARITHMETIC[2])
    assert again.step("rating").reason == "done"
    assert "sketch" in again.step("rating").outputs["scores"]
    engine.retire_template("sketch", "tried it")
    assert engine.decide(ARITHMETIC[3]).step("rating").reason == "done"
    assert [r.purpose for r in llm.requests].count("rate") == 3


def test_a_cache_of_size_zero_rates_every_cold_decision(world: World) -> None:
    llm = world.llm()
    engine = known_kinds(
        world.engine(llm, cold_pulls=50.0, config=_config(rating_cache_size=0)), llm
    )
    decisions = [engine.decide(query) for query in ARITHMETIC]
    assert _rating_steps(decisions) == ["done"] * len(ARITHMETIC)
    assert [r.purpose for r in llm.requests].count("rate") == len(ARITHMETIC)


def test_a_failed_rating_is_not_kept(world: World) -> None:
    replies = iter(["not json", "not json"])
    world.overrides["rate"] = lambda request: next(replies, '{"scores": [3, 3, 3], "tool": "none"}')
    llm = world.llm()
    engine = known_kinds(world.engine(llm, cold_pulls=50.0, config=_config()), llm)
    assert engine.decide(ARITHMETIC[0]).step("rating").reason == "fault"
    assert engine.decide(ARITHMETIC[1]).step("rating").reason == "done"
    assert engine.decide(ARITHMETIC[2]).step("rating").reason == "cached"


def test_the_cache_keys_by_namespace_and_family_and_stays_bounded() -> None:
    cache = RatingCache(2)
    one, two = Rating({"a": 1}, None), Rating({"a": 5}, "calculator")
    cache.put("alpha", "arithmetic", "f", one)
    cache.put("beta", "arithmetic", "f", two)
    assert cache.get("beta", "arithmetic", "f") == two
    assert cache.get("alpha", "arithmetic", "f") == one
    assert cache.get("alpha", "spelling", "f") is None
    cache.put("alpha", "spelling", "f", two)  # alpha/arithmetic was used last: beta goes
    assert len(cache) == 2
    assert cache.get("beta", "arithmetic", "f") is None
    assert cache.get("alpha", "arithmetic", "f") == one


def test_a_cache_of_size_zero_keeps_nothing_and_a_negative_size_is_refused() -> None:
    cache = RatingCache(0)
    cache.put("ns", "arithmetic", "f", Rating({"a": 1}, None))
    assert len(cache) == 0
    with pytest.raises(ConfigError, match="at least 0"):
        RatingCache(-1)


def test_the_fingerprint_changes_with_order_descriptions_and_tools() -> None:
    from engine.domain.records import PathDefinition

    a = PathDefinition("a", "A", "step by step", "{query}")
    b = PathDefinition("b", "B", "work backwards", "{query}")
    base = candidate_fingerprint([a, b], {"none": "no tool"})
    assert base == candidate_fingerprint([a, b], {"none": "no tool"})
    assert base != candidate_fingerprint([b, a], {"none": "no tool"})  # numbered in order
    edited = PathDefinition("a", "A", "step by step, twice", "{query}")
    assert base != candidate_fingerprint([edited, b], {"none": "no tool"})
    assert base != candidate_fingerprint([a, b], {"none": "no tool", "units": "converts"})
