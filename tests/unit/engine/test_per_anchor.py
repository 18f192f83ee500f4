"""What the learner derives from a context (its array, its key) is derived once per anchor."""

import numpy as np
import pytest

from engine.orchestration import learner as learner_module
from engine.orchestration.learner import Learner, PerAnchor
from learning import make_policy

ANCHOR = (0.6, 0.8, 0.0)


def learner() -> Learner:
    policies = {
        role: make_policy("pooled_thompson", ["a", "b"], seed=1, context_dim=3)
        for role in ("path", "tool", "seed")
    }
    return Learner(policies, 3, history=lambda _decision_id: [])


def test_a_tuple_is_derived_once_and_a_list_every_time() -> None:
    derived: list[object] = []

    def how(context: object) -> int:
        derived.append(context)
        return len(derived)

    memo = PerAnchor()
    assert memo.derive(ANCHOR, how) == memo.derive(ANCHOR, how) == 1
    equal = tuple(list(ANCHOR))
    assert equal is not ANCHOR
    assert memo.derive(equal, how) == 2  # an equal tuple is another object: derived again
    as_list = list(ANCHOR)
    memo.derive(as_list, how)
    as_list[0] = 1.0  # a list can change, so it is never remembered
    memo.derive(as_list, how)
    assert derived == [ANCHOR, ANCHOR, [1.0, 0.8, 0.0], [1.0, 0.8, 0.0]]
    assert len(derived) == 4


def test_a_memo_that_is_full_starts_over() -> None:
    derived: list[object] = []

    def how(context: object) -> int:
        derived.append(context)
        return len(derived)

    memo = PerAnchor(size=2)
    anchors = [(float(i),) for i in range(3)]
    for anchor in anchors:  # the third finds the memo full: it starts over with the third
        memo.derive(anchor, how)
    assert memo.derive(anchors[2], how) == 3  # remembered
    assert memo.derive(anchors[0], how) == 4  # forgotten by the start over


def test_the_learner_turns_an_anchor_into_an_array_once(monkeypatch: pytest.MonkeyPatch) -> None:
    arrays: list[object] = []
    make_array = learner_module._context_array

    def counted(context: tuple[float, ...]) -> np.ndarray:
        arrays.append(context)
        return make_array(context)

    monkeypatch.setattr(learner_module, "_context_array", counted)
    book = learner()
    first = book.policy_context("path", ANCHOR)
    assert first is not None
    assert book.policy_context("tool", ANCHOR) is first
    assert len(arrays) == 1
    assert first.tolist() == list(ANCHOR)
    with pytest.raises(ValueError, match="read-only"):
        first[0] = 0.0  # shared by every reader, so no reader may change it
    assert book.recent_rewards(ANCHOR) == book.recent_rewards(list(ANCHOR)) == []
