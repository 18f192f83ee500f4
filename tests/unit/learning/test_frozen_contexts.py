"""A frozen context array is checked and keyed once per policy; any other array every time.

The engine hands every call of a decision the same frozen array (its kind's anchor), so the
policies remember each one by identity (`FrozenMemo`), kinds taking turns; an array that can
change must never be served from that memory.
"""

import numpy as np
import pytest

import learning.contextual
import learning.keyed
from learning import make_policy

# keyed: a plain policy per context (its key); pooled: natively contextual (its check and key)
POLICIES = [("thompson", learning.keyed), ("pooled_thompson", learning.contextual)]
# with no pooling, a context nothing was learned in is a coin toss
NO_POOL = {"thompson": {}, "pooled_thompson": {"prior_strength": 0.0}}


def counting_reads(monkeypatch: pytest.MonkeyPatch, module: object) -> list[object]:
    """Every context the policy turned into a checked vector."""
    seen: list[object] = []
    convert = module.context_vector  # type: ignore[attr-defined]

    def counting(context: object, dim: int, policy: str) -> np.ndarray:
        seen.append(context)
        vector: np.ndarray = convert(context, dim, policy)
        return vector

    monkeypatch.setattr(module, "context_vector", counting)
    return seen


@pytest.mark.parametrize(("name", "module"), POLICIES)
def test_a_frozen_array_is_checked_once(
    name: str, module: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = counting_reads(monkeypatch, module)
    policy = make_policy(name, ["a", "b"], seed=0, context_dim=3)
    anchor = np.array([1.0, 0.0, 0.0])
    anchor.flags.writeable = False
    policy.update("a", 1.0, context=anchor)
    policy.probabilities(context=anchor)
    policy.select(context=anchor)
    policy.cold_arms(context=anchor)
    assert len(reads) == 1


@pytest.mark.parametrize(("name", "module"), POLICIES)
def test_frozen_arrays_taking_turns_are_each_checked_once(
    name: str, module: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = counting_reads(monkeypatch, module)
    policy = make_policy(name, ["a", "b"], seed=0, context_dim=3, **NO_POOL[name])
    anchors = [np.eye(3)[row].copy() for row in range(3)]
    for anchor in anchors:
        anchor.flags.writeable = False
    for _ in range(4):  # three kinds of query, one decision each in turn
        for anchor in anchors:
            policy.probabilities(context=anchor)
            policy.update("a", 1.0, context=anchor)
    assert len(reads) == 3
    assert policy.prob_best(context=anchors[0])["a"] > 0.7


@pytest.mark.parametrize(("name", "module"), POLICIES)
def test_an_array_that_can_change_is_read_every_time(
    name: str, module: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = counting_reads(monkeypatch, module)
    policy = make_policy(name, ["a", "b"], seed=0, context_dim=3, **NO_POOL[name])
    context = np.array([1.0, 0.0, 0.0])
    for _ in range(5):
        policy.update("a", 1.0, context=context)
    context[:] = [0.0, 1.0, 0.0]  # the same object, another kind of query now
    assert len(reads) == 5
    assert policy.prob_best(context=context) == {"a": 0.5, "b": 0.5}  # nothing learned here


@pytest.mark.parametrize(("name", "module"), POLICIES)
def test_a_frozen_view_of_an_array_that_can_change_is_read_every_time(
    name: str, module: object
) -> None:
    policy = make_policy(name, ["a", "b"], seed=0, context_dim=3, **NO_POOL[name])
    numbers = np.array([1.0, 0.0, 0.0])
    view = numbers.view()
    view.flags.writeable = False
    for _ in range(5):
        policy.update("a", 1.0, context=view)
    numbers[:] = [0.0, 0.0, 1.0]  # changes what the frozen view shows
    assert policy.prob_best(context=view) == {"a": 0.5, "b": 0.5}
    assert policy.prob_best(context=np.array([1.0, 0.0, 0.0]))["a"] > 0.7
