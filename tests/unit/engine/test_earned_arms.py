"""Arms that earn their place: a new kind explores first the arms not dominated on every kind
that knows its leader, then every arm; a kind that learned an arm keeps drawing it."""

from collections import deque

from engine.orchestration.earned import dominated_arms
from tests.unit.engine.conftest import World


def test_an_arm_is_dominated_only_on_every_kind_that_knows_its_leader() -> None:
    knowing = [{"a": 0.9, "b": 0.1, "c": 0.0}, {"a": 0.1, "b": 0.9, "c": 0.0}]
    assert dominated_arms(knowing) == {"c"}
    unsure = [*knowing, {"a": 0.4, "b": 0.3, "c": 0.3}]  # knows no leader: it does not vote
    assert dominated_arms(unsure) == {"c"}
    assert dominated_arms([*knowing, {"a": 0.6, "b": 0.1, "c": 0.3}]) == frozenset()


def test_a_new_kind_explores_earned_arms_first_then_every_arm(world: World) -> None:
    engine = world.engine()
    for _ in range(25):  # both kinds learn from the exact check; "ramble" never answers right
        for query in ("What is the sum 3 + 4?", "What is the first letter of apple?"):
            engine.decide(query, checker=world.checker_for(query))
    book = engine._book
    policy = book._learner.policies["path"]
    learned = [row["kind"] for row in engine.kinds()]
    assert len(learned) == 2
    new_kind = [0.6, 0.8]  # like neither kind in particular
    allowed = book.explorable("path", new_kind)
    assert "ramble" not in allowed
    assert set(policy.arms) - {"ramble"} <= allowed
    assert "ramble" in book.explorable("path", [1.0, 0.0])  # a kind that knows enough: all arms
    # ...and so does the new kind, once it has its own outcomes (a recent window's worth)
    book._learner._recent[tuple(new_kind)] = deque([0.5] * book._learner.recent_window)
    assert book.explorable("path", new_kind) == set(policy.arms)
