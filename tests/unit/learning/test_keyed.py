"""A keyed policy's context keys: a frozen array's key is made once, any other array's each time."""

import numpy as np
import pytest

import learning.keyed
from learning import make_policy


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every context the keyed policy turned into a vector."""
    seen: list[object] = []
    convert = learning.keyed.context_vector

    def counting(context: object, dim: int, policy: str) -> np.ndarray:
        seen.append(context)
        return convert(context, dim, policy)

    monkeypatch.setattr(learning.keyed, "context_vector", counting)
    return seen


def test_a_frozen_array_is_turned_into_a_key_once(reads: list[object]) -> None:
    policy = make_policy("thompson", ["a", "b"], seed=0, context_dim=3)
    anchor = np.array([1.0, 0.0, 0.0])
    anchor.flags.writeable = False
    policy.update("a", 1.0, context=anchor)
    policy.probabilities(context=anchor)
    policy.select(context=anchor)
    assert len(reads) == 1


def test_an_array_that_can_change_is_read_every_time(reads: list[object]) -> None:
    policy = make_policy("thompson", ["a", "b"], seed=0, context_dim=3)
    context = np.array([1.0, 0.0, 0.0])
    policy.update("a", 1.0, context=context)
    context[:] = [0.0, 1.0, 0.0]  # the same object, another kind of query now
    policy.update("b", 1.0, context=context)
    assert len(reads) == 2
    assert sorted(policy.contexts) == [(0.0, 1.0, 0.0), (1.0, 0.0, 0.0)]


def test_a_frozen_view_of_an_array_that_can_change_is_read_every_time() -> None:
    policy = make_policy("thompson", ["a", "b"], seed=0, context_dim=3)
    numbers = np.array([1.0, 0.0, 0.0])
    view = numbers.view()
    view.flags.writeable = False
    policy.update("a", 1.0, context=view)
    numbers[:] = [0.0, 0.0, 1.0]  # changes what the frozen view shows
    policy.update("a", 1.0, context=view)
    assert sorted(policy.contexts) == [(0.0, 0.0, 1.0), (1.0, 0.0, 0.0)]
