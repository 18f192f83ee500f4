"""The pooled (hierarchical) prior of `pooled_thompson` and `pooled_bayes_ucb`."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from learning import load_policy, make_policy
from learning.errors import InvalidParameterError, StateError
from learning.pooled_thompson import PooledThompsonSampling

FAMILIES = np.eye(4)
ARMS = ["a", "b", "c"]


def _play(policy: object, steps: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    means = np.array([[0.2, 0.7, 0.4], [0.3, 0.8, 0.1], [0.6, 0.5, 0.2], [0.1, 0.9, 0.3]])
    chosen = []
    for _ in range(steps):
        family = int(rng.integers(4))
        arm = policy.select(context=FAMILIES[family])  # type: ignore[attr-defined]
        reward = float(rng.random() < means[family, ARMS.index(arm)])
        policy.update(arm, reward, context=FAMILIES[family])  # type: ignore[attr-defined]
        chosen.append(arm)
    return chosen


@pytest.mark.parametrize(
    ("pooled", "from_zero"),
    [("pooled_thompson", "contextual_thompson"), ("pooled_bayes_ucb", "contextual_bayes_ucb")],
)
def test_without_strength_it_is_the_same_rule_from_zero(pooled: str, from_zero: str) -> None:
    flat = make_policy(pooled, ARMS, seed=5, context_dim=4, prior_strength=0.0)
    plain = make_policy(from_zero, ARMS, seed=5, context_dim=4)
    assert _play(flat, 120, seed=1) == _play(plain, 120, seed=1)


def test_the_prior_is_the_other_families_mean_worth_at_most_m_pulls() -> None:
    policy = PooledThompsonSampling(ARMS, seed=0, context_dim=4, prior_strength=4.0)
    for _ in range(6):  # family 0: arm "a" pays 1 in 6 of 6 pulls
        policy.update("a", 1.0, context=FAMILIES[0])
    policy.update("b", 0.0, context=FAMILIES[1])
    table = policy.posterior(FAMILIES[2])
    # a: mean (1 + 6) / (2 + 6) = 7/8, strength min(4, 6) = 4 -> Beta(1 + 3.5, 1 + 0.5)
    assert table[:, 0].tolist() == pytest.approx([4.5, 1.5])
    # b: one pull only, so worth one pseudo-pull: mean 1/3 -> Beta(1 + 1/3, 1 + 2/3)
    assert table[:, 1].tolist() == pytest.approx([4 / 3, 5 / 3])
    assert table[:, 2].tolist() == pytest.approx([1.0, 1.0])  # never pulled: the flat prior
    # family 0's own outcomes are not counted twice: its prior comes from family 1 alone
    own = policy.posterior(FAMILIES[0])
    assert own[:, 0].tolist() == pytest.approx([1.0 + 6.0, 1.0])


def test_a_family_moves_to_its_own_statistics_as_they_grow() -> None:
    policy = make_policy("pooled_thompson", ARMS, seed=0, context_dim=4)
    for family in FAMILIES[:3]:
        for _ in range(20):
            policy.update("a", 1.0, context=family)
            policy.update("b", 0.0, context=family)
    new = FAMILIES[3]
    assert policy.prob_best(context=new)["a"] > 0.8  # the pool's verdict, before any own pull
    assert not policy.is_cold("a", context=new)  # pseudo-pulls count as evidence
    for _ in range(40):  # but here "b" is the good one
        policy.update("a", 0.0, context=new)
        policy.update("b", 1.0, context=new)
    assert policy.prob_best(context=new)["a"] < 0.01  # ("c", never pulled, may still be best)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.sampled_from(ARMS), st.floats(0, 1), st.floats(0.1, 1)),
        max_size=40,
    ),
    st.floats(0, 20),
)
def test_the_posterior_is_proper_and_the_prior_never_outweighs_m(
    steps: list[tuple[int, str, float, float]], strength: float
) -> None:
    policy = PooledThompsonSampling(ARMS, seed=0, context_dim=4, prior_strength=strength)
    own = np.zeros((4, 2, 3))
    for family, arm, reward, weight in steps:
        policy.update(arm, reward, context=FAMILIES[family], weight=weight)
        own[family, :, ARMS.index(arm)] += (weight * reward, weight * (1 - reward))
    for family in range(4):
        table = policy.posterior(FAMILIES[family])
        assert (table > 0).all()
        prior_mass = table.sum(axis=0) - 2.0 - own[family].sum(axis=0)
        assert (prior_mass <= strength + 1e-9).all()
        assert (prior_mass >= -1e-9).all()


def test_state_round_trips_and_bad_state_is_refused() -> None:
    policy = make_policy("pooled_bayes_ucb", ARMS, seed=3, context_dim=4, prior_strength=2.0)
    _play(policy, 50, seed=2)
    state = json.loads(json.dumps(policy.to_dict()))
    copy = load_policy(state)
    assert copy.params["prior_strength"] == 2.0
    assert _play(copy, 30, seed=9) == _play(policy, 30, seed=9)
    broken = json.loads(json.dumps(state))
    broken["stats"]["totals"][0][0] += 1.0
    with pytest.raises(StateError, match="totals"):
        load_policy(broken)
    broken = json.loads(json.dumps(state))
    broken["stats"]["failures"][0][0] = -1.0
    with pytest.raises(StateError, match="non-negative"):
        load_policy(broken)
    broken = json.loads(json.dumps(state))  # one context's counts saved twice
    stats = broken["stats"]
    for field in ("contexts", "successes", "failures"):
        stats[field].append(stats[field][0])
    stats["totals"] = [
        [sum(row[arm] for row in stats[field]) for arm in range(len(ARMS))]
        for field in ("successes", "failures")
    ]
    with pytest.raises(StateError, match="the same context twice"):
        load_policy(broken)


def test_contexts_are_bounded_and_arms_can_change() -> None:
    policy = make_policy("pooled_thompson", ARMS, seed=0, context_dim=4, max_contexts=2)
    policy.update("a", 1.0, context=FAMILIES[0])
    policy.update("a", 1.0, context=FAMILIES[1])
    with pytest.raises(InvalidParameterError, match="max_contexts"):
        policy.update("a", 1.0, context=FAMILIES[2])
    policy.add_arm("d")
    assert policy.posterior(FAMILIES[2])[:, 3].tolist() == [1.0, 1.0]  # type: ignore[attr-defined]
    policy.remove_arm("a")
    assert policy.posterior(FAMILIES[2]).shape == (2, 3)  # type: ignore[attr-defined]


def test_a_retraction_takes_the_update_out_of_every_familys_prior() -> None:
    """The engine's evidence rule retracts an outcome that a correction replaced; with the pool
    the retracted share must leave the other families' priors too, and a state whose counts end
    a rounding error below zero (added then retracted) must still load (a checkpoint)."""
    policy = make_policy("pooled_thompson", ARMS, seed=0, context_dim=4)
    policy.update("b", 0.0, context=FAMILIES[1])
    before = policy.posterior(FAMILIES[2])  # type: ignore[attr-defined]
    rewards = [(0.1, 0.3), (0.7, 0.9), (0.2, 0.6)]
    for reward, weight in rewards:
        policy.update("a", reward, context=FAMILIES[0], weight=weight)
    assert policy.posterior(FAMILIES[2])[0, 0] > before[0, 0]  # type: ignore[attr-defined]
    for reward, weight in rewards:
        policy.retract("a", reward, context=FAMILIES[0], weight=weight)
    after = policy.posterior(FAMILIES[2])  # type: ignore[attr-defined]
    np.testing.assert_allclose(after, before, atol=1e-12)
    state = json.loads(json.dumps(policy.to_dict()))
    state["stats"]["failures"][0][0] = -1e-15  # what float sums can leave behind
    assert load_policy(state).arms == ARMS


@pytest.mark.parametrize("name", ["pooled_thompson", "pooled_bayes_ucb"])
def test_a_contexts_posterior_is_computed_once_until_the_statistics_change(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    policy = make_policy(name, ARMS, seed=2, context_dim=4)
    for family in FAMILIES[:3]:
        policy.update("b", 1.0, context=family)
    computed: list[bytes] = []
    compute = PooledThompsonSampling._posterior

    def counted(self: PooledThompsonSampling, context: np.ndarray) -> np.ndarray:
        computed.append(context.tobytes())
        return compute(self, context)

    monkeypatch.setattr(PooledThompsonSampling, "_posterior", counted)

    def read_as_a_decision_does(family: np.ndarray) -> None:
        for arm in ARMS:  # one `is_cold` per arm, P(best) and the propensities, one pick
            policy.is_cold(arm, context=family)
        policy.cold_arms(context=family)
        policy.explain(context=family)
        policy.select(context=family)

    read_as_a_decision_does(FAMILIES[0])
    read_as_a_decision_does(FAMILIES[0])
    assert len(computed) == 1
    read_as_a_decision_does(FAMILIES[3])  # another context has its own posterior
    assert len(computed) == 2
    policy.update("a", 0.0, context=FAMILIES[1])  # changes every context's prior
    read_as_a_decision_does(FAMILIES[0])
    assert len(computed) == 3


def _answers(policy: PooledThompsonSampling) -> list[object]:
    """What a reader gets for every family: evidence per arm and P(best)."""
    return [
        ([policy._evidence(i, family) for i in range(len(policy.arms))], policy.prob_best(family))
        for family in FAMILIES
    ]


def test_what_is_remembered_is_never_stale_after_any_change() -> None:
    policy = make_policy("pooled_thompson", ARMS, seed=2, context_dim=4)
    assert isinstance(policy, PooledThompsonSampling)
    changes = [
        lambda p: p.update("b", 1.0, context=FAMILIES[0]),
        lambda p: p.update("c", 0.25, context=FAMILIES[2], weight=0.5),
        lambda p: p.retract("b", 1.0, context=FAMILIES[0]),
        lambda p: p.add_arm("d"),
        lambda p: p.update("d", 1.0, context=FAMILIES[1]),
        lambda p: p.remove_arm("a"),
    ]
    for change in changes:
        _answers(policy)  # fill the memo
        change(policy)
        fresh = load_policy(json.loads(json.dumps(policy.to_dict())))  # nothing remembered
        assert isinstance(fresh, PooledThompsonSampling)
        assert _answers(policy) == _answers(fresh)
        for family in FAMILIES:  # and the memo agrees with a computation from the counts
            assert np.array_equal(policy._memoised_posterior(family), policy.posterior(family))
    restored = PooledThompsonSampling.from_dict(policy.to_dict())
    assert isinstance(restored, PooledThompsonSampling)
    remembered = _answers(restored)
    restored._stats_from_dict({"contexts": []})  # a restore replaces the counts: forget all
    assert _answers(restored) != remembered
    for family in FAMILIES:
        assert np.array_equal(restored._memoised_posterior(family), restored.posterior(family))


def test_cold_arms_read_the_posterior_once_for_every_arm(monkeypatch: pytest.MonkeyPatch) -> None:
    policy = make_policy("pooled_thompson", ARMS, seed=2, context_dim=4)
    assert isinstance(policy, PooledThompsonSampling)
    policy.update("b", 1.0, context=FAMILIES[0])
    reads: list[int] = []
    read = PooledThompsonSampling._memoised_posterior

    def counted(self: PooledThompsonSampling, context: np.ndarray) -> np.ndarray:
        reads.append(1)
        return read(self, context)

    monkeypatch.setattr(PooledThompsonSampling, "_memoised_posterior", counted)
    cold = policy.cold_arms(context=FAMILIES[1])
    assert len(reads) == 1  # `is_cold` per arm read it once per arm
    reads.clear()
    assert cold == [arm for arm in ARMS if policy.is_cold(arm, context=FAMILIES[1])]
    assert len(reads) == len(ARMS)
