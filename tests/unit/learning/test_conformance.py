"""The contract every registered policy keeps (run over `available_policies()`)."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest

from learning import describe_policy, load_policy, make_policy
from learning.errors import (
    ContextError,
    DuplicateArmError,
    InvalidParameterError,
    InvalidRewardError,
    PolicyError,
    StateError,
    UnknownArmError,
    UnknownPolicyError,
)
from learning.keyed import KeyedPolicy

from .conftest import CONTEXT_DIM, KEYED, build, run, stub_environment, variants

ARMS = ["a", "b", "c"]
POLICIES = variants()


def one_hot(policy: Any, index: int = 0) -> np.ndarray | None:
    return np.eye(CONTEXT_DIM)[index] if policy.is_contextual else None


def reseed(policy: Any, seed: int, context: np.ndarray | None) -> None:
    """Fresh randomness for the policy that will choose in `context` (for frequency tests)."""
    chooser = policy.sub_policy(context) if isinstance(policy, KeyedPolicy) else policy
    chooser._rng = np.random.default_rng(seed)


@pytest.mark.parametrize("name", POLICIES)
def test_same_seed_same_decisions(name: str) -> None:
    first = run(build(name, ARMS, seed=11), stub_environment(seed=5), 150)
    second = run(build(name, ARMS, seed=11), stub_environment(seed=5), 150)
    assert first == second


@pytest.mark.parametrize("name", POLICIES)
def test_probabilities_sum_to_one_and_do_not_disturb_the_stream(name: str) -> None:
    policy, twin = build(name, ARMS, seed=3), build(name, ARMS, seed=3)
    env, twin_env = stub_environment(seed=1), stub_environment(seed=1)
    run(policy, env, 60)
    run(twin, twin_env, 60)
    for context_index in range(CONTEXT_DIM):
        context = one_hot(policy, context_index)
        probabilities = policy.probabilities(context=context)
        assert list(probabilities) == ARMS
        assert math.isclose(sum(probabilities.values()), 1.0, abs_tol=1e-9)
        assert all(0.0 <= p <= 1.0 for p in probabilities.values())
        best = policy.prob_best(context=context)
        assert math.isclose(sum(best.values()), 1.0, abs_tol=1e-9)
    assert run(policy, env, 40) == run(twin, twin_env, 40)


@pytest.mark.parametrize("name", POLICIES)
def test_probabilities_match_selection_frequencies(name: str) -> None:
    policy = build(name, ARMS, seed=9)
    run(policy, stub_environment(seed=2), 30)
    context = one_hot(policy, 1)
    expected = np.array(list(policy.probabilities(context=context).values()))
    state = policy.to_dict()
    counts = np.zeros(len(ARMS))
    draws = 2000
    for seed in range(draws):  # the same state with fresh randomness
        copy = load_policy(state)
        reseed(copy, seed, context)
        counts[ARMS.index(copy.select(context=context))] += 1
    assert np.abs(counts / draws - expected).max() < 0.05


@pytest.mark.parametrize("name", POLICIES)
def test_beats_uniform_random_on_the_stub_environment(name: str) -> None:
    # In context c the best arm is ARMS[c] (0.8 against 0.3): uniform random picks it 1/3 of
    # the time. A learner must pick it far more often once it has had time to learn.
    steps = 800
    chosen = run(build(name, ARMS, seed=4), stub_environment(seed=4), steps)
    late = chosen[steps // 2 :]
    share_best = sum(arm == ARMS[context] for context, arm in late) / len(late)
    assert share_best > 0.6


@pytest.mark.parametrize("name", POLICIES)
def test_a_fresh_policy_round_trips(name: str) -> None:
    policy = build(name, ARMS, seed=1)
    copy = load_policy(json.loads(json.dumps(policy.to_dict())))
    assert run(policy, stub_environment(seed=2), 30) == run(copy, stub_environment(seed=2), 30)


@pytest.mark.parametrize("name", POLICIES)
def test_state_round_trips_through_json_with_identical_future(name: str) -> None:
    policy = build(name, ARMS, seed=21)
    run(policy, stub_environment(seed=8), 120)
    state = json.loads(json.dumps(policy.to_dict()))
    copy = load_policy(state)
    assert copy.name == policy.name
    assert copy.arms == policy.arms
    assert copy.to_dict() == policy.to_dict()
    assert run(policy, stub_environment(seed=13), 80) == run(copy, stub_environment(seed=13), 80)


def _bad_calls(policy: Any) -> list[tuple[type[Exception], Any]]:
    context = one_hot(policy)
    calls: list[tuple[type[Exception], Any]] = [
        (InvalidRewardError, lambda: policy.update("a", math.nan, context=context)),
        (InvalidRewardError, lambda: policy.update("a", math.inf, context=context)),
        (InvalidRewardError, lambda: policy.update("a", -0.1, context=context)),
        (InvalidRewardError, lambda: policy.update("a", 1.5, context=context)),
        (InvalidRewardError, lambda: policy.update("a", "good", context=context)),
        (InvalidRewardError, lambda: policy.update("a", 0.5, context=context, weight=0.0)),
        (InvalidRewardError, lambda: policy.update("a", 0.5, context=context, weight=math.nan)),
        (InvalidRewardError, lambda: policy.update("a", 0.5, context=context, weight=2.0)),
        (UnknownArmError, lambda: policy.update("zzz", 0.5, context=context)),
        (UnknownArmError, lambda: policy.is_cold("zzz", context=context)),
        (UnknownArmError, lambda: policy.remove_arm("zzz")),
        (DuplicateArmError, lambda: policy.add_arm("a")),
        (InvalidParameterError, lambda: policy.add_arm("")),
    ]
    if policy.is_contextual:
        wrong = np.ones(CONTEXT_DIM + 1)
        calls += [
            (ContextError, policy.select),
            (ContextError, lambda: policy.select(context=wrong)),
            (ContextError, lambda: policy.select(context=np.full(CONTEXT_DIM, np.nan))),
            (ContextError, lambda: policy.select(context=np.ones((1, CONTEXT_DIM)))),
            (ContextError, lambda: policy.update("a", 0.5)),
            (ContextError, lambda: policy.update("a", 0.5, context=wrong)),
            (ContextError, lambda: policy.probabilities(context=wrong)),
        ]
    else:
        calls += [
            (ContextError, lambda: policy.select(context=np.ones(2))),
            (ContextError, lambda: policy.update("a", 0.5, context=np.ones(2))),
            (ContextError, lambda: policy.probabilities(context=np.ones(2))),
        ]
    return calls


@pytest.mark.parametrize("name", POLICIES)
def test_bad_input_is_rejected_and_leaves_state_unchanged(name: str) -> None:
    policy = build(name, ARMS, seed=2)
    run(policy, stub_environment(seed=3), 50)
    before = json.dumps(policy.to_dict())
    for error, call in _bad_calls(policy):
        with pytest.raises(error):
            call()
        assert json.dumps(policy.to_dict()) == before, error


@pytest.mark.parametrize("name", POLICIES)
def test_arms_can_be_added_and_removed_at_runtime(name: str) -> None:
    policy = build(name, ARMS, seed=6)
    run(policy, stub_environment(seed=6), 60)
    policy.add_arm("d")
    context = one_hot(policy)
    assert policy.arms == [*ARMS, "d"]
    assert policy.is_cold("d", context=context)
    assert list(policy.probabilities(context=context)) == [*ARMS, "d"]
    for _ in range(40):
        policy.update("d", 1.0, context=context)
    assert not policy.is_cold("d", context=context)
    policy.remove_arm("b")
    assert policy.arms == ["a", "c", "d"]
    assert set(policy.probabilities(context=context)) == {"a", "c", "d"}
    assert load_policy(json.loads(json.dumps(policy.to_dict()))).arms == ["a", "c", "d"]
    for _ in range(20):
        assert policy.select(context=context) in {"a", "c", "d"}
    policy.remove_arm("a")
    policy.remove_arm("c")
    with pytest.raises(PolicyError):
        policy.remove_arm("d")
    assert policy.arms == ["d"]


@pytest.mark.parametrize("name", POLICIES)
def test_fresh_arms_are_cold(name: str) -> None:
    policy = build(name, ARMS, seed=0)
    assert all(policy.is_cold(arm, context=one_hot(policy)) for arm in ARMS)


@pytest.mark.parametrize("name", POLICIES)
def test_unknown_or_out_of_range_parameters_are_named(name: str) -> None:
    with pytest.raises(InvalidParameterError, match="no_such_knob"):
        build(name, ARMS, no_such_knob=1)
    with pytest.raises(InvalidParameterError, match="cold_width"):
        build(name, ARMS, cold_width=-1.0)
    with pytest.raises(InvalidParameterError, match="seed"):
        build(name, ARMS, seed=-1)
    with pytest.raises(DuplicateArmError):
        build(name, ["a", "a"])
    assert describe_policy(name.removesuffix(KEYED))


def test_unknown_policy_lists_the_known_ones() -> None:
    with pytest.raises(UnknownPolicyError, match="thompson"):
        make_policy("no-such-policy", arms=ARMS)


@pytest.mark.parametrize("name", POLICIES)
def test_newer_or_foreign_state_is_refused(name: str) -> None:
    state = build(name, ARMS).to_dict()
    with pytest.raises(StateError, match="newer"):
        load_policy({**state, "format_version": state["format_version"] + 1})
    with pytest.raises(StateError):
        load_policy({**state, "policy": "no-such-policy"})
    with pytest.raises(StateError):
        load_policy({**state, "stats": {}})
    with pytest.raises(StateError):
        load_policy({**state, "rng": {"bit_generator": "nonsense"}})
    with pytest.raises(StateError):
        load_policy([1, 2, 3])  # type: ignore[arg-type]


@pytest.mark.parametrize("name", POLICIES)
def test_explain_equals_the_two_separate_calls(name: str) -> None:
    policy = build(name, ARMS, seed=5)
    run(policy, stub_environment(seed=5), 40)
    for context_index in range(CONTEXT_DIM):
        context = one_hot(policy, context_index)
        explained = policy.explain(context=context)
        assert explained.probabilities == policy.probabilities(context=context)
        assert explained.prob_best == policy.prob_best(context=context)


@pytest.mark.parametrize("name", POLICIES)
def test_a_retracted_update_leaves_the_statistics_as_they_were(name: str) -> None:
    """A correction takes an outcome's share back out (`retract`): exact where the statistics
    are sums, and refused, with nothing changed, where they are not."""
    policy = build(name, ARMS, seed=4)
    run(policy, stub_environment(seed=9), 40)
    context = one_hot(policy, 1)
    before = policy.to_dict()
    if not policy.can_retract:
        with pytest.raises(PolicyError, match="cannot retract"):
            policy.retract("b", 0.75, context=context, weight=0.5)
        assert policy.to_dict() == before
        return
    policy.update("b", 0.75, context=context, weight=0.5)
    policy.retract("b", 0.75, context=context, weight=0.5)
    after = policy.to_dict()
    assert after["arms"] == before["arms"]
    np.testing.assert_allclose(_numbers(after["stats"]), _numbers(before["stats"]), atol=1e-12)
    with pytest.raises(InvalidRewardError):
        policy.retract("b", 0.75, context=context, weight=0.0)


def _numbers(value: Any) -> list[float]:
    """Every number in a state, in order (the statistics compared with a rounding tolerance)."""
    if isinstance(value, dict):
        return [x for key in sorted(value) for x in _numbers(value[key])]
    if isinstance(value, list):
        return [x for item in value for x in _numbers(item)]
    return [float(value)] if isinstance(value, int | float) and not isinstance(value, bool) else []


@pytest.mark.parametrize("name", POLICIES)
def test_cold_arms_are_the_arms_is_cold_holds_for(name: str) -> None:
    policy = build(name, ARMS, seed=4)

    def agree() -> None:
        for index in range(CONTEXT_DIM if policy.is_contextual else 1):
            context = one_hot(policy, index)
            expected = [arm for arm in policy.arms if policy.is_cold(arm, context=context)]
            assert policy.cold_arms(context=context) == expected

    agree()  # fresh
    for step in range(3):  # partly, then well learned
        run(policy, stub_environment(seed=step), 20)
        agree()
    policy.add_arm("d")  # a fresh arm beside learned ones
    agree()
