"""The peers: NumPy references, the MABWiser adapter and the naive variance chooser."""

import numpy as np
import pytest

from engine.errors import ConfigError
from experiments.benchmarks.environments import Environment, standard_workloads
from experiments.benchmarks.harness import arm_names, play
from experiments.benchmarks.mabwiser_peer import MABWiserPolicy
from experiments.benchmarks.peers import (
    BanditPolicy,
    ContextBlind,
    NumPyThompson,
    NumPyThompsonPerContext,
    VarianceChooser,
)

FloatArray = np.ndarray


def _random_regret(environment: Environment) -> float:
    means = environment.step_means
    return float((means.max(axis=1) - means.mean(axis=1)).sum())


def test_numpy_thompson_is_reproducible_and_learns() -> None:
    environment = standard_workloads()["stationary"].build(3_000, seed=4)
    arms = arm_names(10)
    first = play(NumPyThompson(arms, seed=1), environment)
    again = play(NumPyThompson(arms, seed=1), environment)
    assert np.array_equal(first, again)
    assert environment.regret_of(first) < 0.2 * _random_regret(environment)


def test_numpy_thompson_per_context_beats_ignoring_the_context() -> None:
    environment = standard_workloads()["contextual"].build(4_000, seed=2)
    arms = arm_names(5)
    per_context = environment.regret_of(play(NumPyThompsonPerContext(arms, seed=3), environment))
    blind = environment.regret_of(play(NumPyThompson(arms, seed=3), environment))
    assert per_context < 0.5 * blind


def test_numpy_thompson_per_context_needs_a_context() -> None:
    with pytest.raises(ConfigError, match="needs a context"):
        NumPyThompsonPerContext(["a", "b"], seed=0).select()


def test_mabwiser_thompson_learns_through_its_public_api() -> None:
    environment = standard_workloads()["stationary"].build(400, seed=8)
    chosen = play(MABWiserPolicy(arm_names(10), "thompson", 5, None), environment)
    assert environment.regret_of(chosen) < 0.6 * _random_regret(environment)


@pytest.mark.parametrize(
    ("name", "workload"),
    [("thompson", "stationary"), ("ucb1", "drift"), ("linucb", "contextual")],
)
def test_mabwiser_fast_path_decides_exactly_as_the_public_api(name: str, workload: str) -> None:
    environment = standard_workloads()[workload].build(400, seed=6)
    arms, dim = arm_names(environment.n_arms), environment.context_dim
    public = play(MABWiserPolicy(arms, name, 2, dim), environment)
    fast = play(MABWiserPolicy(arms, name, 2, dim, fast_path=True), environment)
    assert len(set(public.tolist())) > 1  # it does move between arms
    assert np.array_equal(public, fast)


def test_mabwiser_thompson_decides_as_the_numpy_reference_on_the_same_seed() -> None:
    """Both are Beta(1, 1) Thompson sampling on numpy's default generator: same stream, same picks.

    This is why their regret rows agree to the last digit; it also cross-checks both.
    """
    environment = standard_workloads()["stationary"].build(1_000, seed=3)
    arms = arm_names(10)
    mabwiser = play(MABWiserPolicy(arms, "thompson", 9, None, fast_path=True), environment)
    assert np.array_equal(mabwiser, play(NumPyThompson(arms, seed=9), environment))


def test_mabwiser_adapter_refuses_what_it_cannot_do_exactly() -> None:
    with pytest.raises(ConfigError, match="only exact for"):
        MABWiserPolicy(["a", "b"], "lints", 0, 2, fast_path=True)
    with pytest.raises(ConfigError, match="needs a context_dim"):
        MABWiserPolicy(["a", "b"], "linucb", 0, None)
    with pytest.raises(ConfigError, match="no MABWiser peer named 'softmax'"):
        MABWiserPolicy(["a", "b"], "softmax", 0, None)


class Recorder:
    """A policy that remembers its updates and always plays its first arm."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.updates: list[tuple[str, float, bool]] = []

    def select(self, context: FloatArray | None = None) -> str:
        return "a"

    def update(self, arm: str, reward: float, context: FloatArray | None = None) -> None:
        self.updates.append((arm, reward, context is not None))


def _chooser(rewards: dict[str, float], built: list[Recorder]) -> VarianceChooser:
    def build(name: str) -> BanditPolicy:
        built.append(Recorder(name))
        return built[-1]

    chooser = VarianceChooser(
        ["a", "b"], build, low_variance="careful", high_variance="greedy", pulls_per_arm=2
    )
    for _ in range(4):
        arm = chooser.select()
        chooser.update(arm, rewards[arm])
    return chooser


def test_variance_chooser_warms_up_round_robin_then_picks_greedy_on_spread_rates() -> None:
    built: list[Recorder] = []
    chooser = _chooser({"a": 1.0, "b": 0.0}, built)  # rates 1 and 0: variance 0.25
    assert chooser.chosen_name == "greedy"
    assert [name for name, _, _ in built[0].updates] == ["a", "b", "a", "b"]
    chooser.update("b", 0.5)
    assert built[0].updates[-1] == ("b", 0.5, False)
    assert len(built) == 1


def test_variance_chooser_picks_careful_when_rates_are_alike() -> None:
    built: list[Recorder] = []
    chooser = _chooser({"a": 1.0, "b": 1.0}, built)
    assert chooser.chosen_name == "careful"
    assert chooser.select() == "a"


def test_variance_chooser_refuses_an_empty_warm_up() -> None:
    with pytest.raises(ConfigError, match="pulls_per_arm"):
        VarianceChooser(["a"], Recorder, low_variance="x", high_variance="y", pulls_per_arm=0)


def test_context_blind_withholds_the_context() -> None:
    inner = Recorder("inner")
    blind = ContextBlind(inner)
    assert blind.select(context=np.ones(3)) == "a"
    blind.update("a", 1.0, context=np.ones(3))
    assert inner.updates == [("a", 1.0, False)]


def test_mabwiser_ucb1_plays_every_arm_once_before_its_index() -> None:
    environment = standard_workloads()["stationary"].build(20, seed=1)
    chosen = play(MABWiserPolicy(arm_names(10), "ucb1", 0, None, fast_path=True), environment)
    assert chosen[:10].tolist() == list(range(10))
