"""The same seed gives the same decisions; one engine serves several threads at once."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from engine.compose import build_policy_factory
from engine.domain.config import DetourRules, EngineConfig
from engine.settings import load_settings
from learning import make_policy

QUERIES = ["What is the sum 3 + 4?", "What is the first letter of apple?"] * 6


def run(world_factory) -> list[tuple[str, ...]]:
    """Twelve decisions of an engine built as the product builds it: its policy factory (one
    random stream per role), the seed role and the referee's audits on, tools in play."""
    world = world_factory()
    factory = build_policy_factory(load_settings(policy_seed=9))
    engine = world.engine(
        config=EngineConfig(seed=9, detour=DetourRules(prob_best_floor=0.0)),
        policy_factory=factory,
        tools=True,
    )
    chosen: list[tuple[str, ...]] = []
    for query in QUERIES:
        decision = engine.decide(query, checker=world.checker_for(query))
        seed = decision.step("seed").reason
        sources = ",".join(o.source for o in decision.outcomes)
        chosen.append(
            (decision.path.arm_id, decision.path.reason, decision.tool.arm_id, seed, sources)
        )
    return chosen


def test_the_same_seed_gives_the_same_decisions(world) -> None:
    world_type = type(world)
    first, second = run(world_type), run(world_type)
    assert first == second
    for column in (0, 2, 3):  # paths, tools, seed or not: none trivially constant
        assert len({row[column] for row in first}) > 1, column


def test_path_and_tool_policies_draw_from_their_own_streams() -> None:
    """With one seed for both, the path and tool policies drew the same numbers and picked in
    lockstep; each role now has its own stream of the seed (`learning.streams`)."""
    factory = build_policy_factory(load_settings(policy_seed=7))
    arms = ["a", "b", "c"]
    context = np.array([1.0, 0.0, 1.0])

    def draws(role: str) -> list[str]:
        policy = factory(role, arms, 3)
        return [policy.select(context) for _ in range(60)]

    path, tool, seed = draws("path"), draws("tool"), draws("seed")
    assert sum(p == t for p, t in zip(path, tool, strict=True)) < 40  # not one for one
    assert path != seed
    assert tool != seed
    assert draws("path") == path  # the same seed still gives the same draws
    assert draws("tool") == tool


def test_each_family_of_a_keyed_policy_draws_from_its_own_stream() -> None:
    policy = make_policy("thompson", ["a", "b", "c"], seed=7, context_dim=2)
    arithmetic, spelling = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    first = [policy.select(context=arithmetic) for _ in range(60)]
    second = [policy.select(context=spelling) for _ in range(60)]
    assert sum(a == b for a, b in zip(first, second, strict=True)) < 40


def test_concurrent_decisions_are_all_recorded_and_learned(world) -> None:
    engine = world.engine()
    with ThreadPoolExecutor(max_workers=4) as pool:
        decisions = list(
            pool.map(lambda q: engine.decide(q, checker=world.checker_for(q)), QUERIES * 2)
        )
    assert len({d.id for d in decisions}) == len(QUERIES) * 2
    learned = world.store.outcomes_since("default", 0)
    assert [o.source for o in learned].count("checker") == len(decisions)
    # Besides, the referee audits a share of them: recorded, and outranked by the checker.
    assert {o.source for o in learned} <= {"checker", "referee"}
    assert sum(r.outcomes for r in engine.arms() if r.role == "path") == len(decisions)
