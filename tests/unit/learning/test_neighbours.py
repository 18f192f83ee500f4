"""Each context's k nearest, kept as contexts come, equal a brute-force search at every step;
`pooled_thompson` pools from them only, and a policy rebuilt from its state pools alike."""

import numpy as np
import pytest

from learning import load_policy
from learning.neighbours import NearestContexts
from learning.pooled_thompson import PooledThompsonSampling


def brute_force(units: np.ndarray, row: int, k: int) -> list[int]:
    cosines = units[: len(units)] @ units[row]
    others = [j for j in range(len(units)) if j != row]
    return sorted(others, key=lambda j: (-cosines[j], j))[:k]


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("k", [1, 3, 8])
def test_the_lists_are_the_brute_force_nearest_after_every_addition(seed: int, k: int) -> None:
    rng = np.random.default_rng(seed)
    # a few exact repeats and one-hot ties, beside random directions
    vectors = np.concatenate((rng.standard_normal((30, 6)), np.eye(6), np.eye(6)[:2]))
    vectors = vectors[rng.permutation(len(vectors))]
    index = NearestContexts(dimension=6, k=k)
    units = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    for count, vector in enumerate(vectors, start=1):
        index.add(vector)
        for row in range(count):
            assert index.neighbours(row)[0].tolist() == brute_force(units[:count], row, k)
    probe = rng.standard_normal(6)
    cosines = units @ (probe / np.linalg.norm(probe))
    expected = sorted(range(len(units)), key=lambda j: (-cosines[j], j))[:k]
    assert index.nearest(probe)[0].tolist() == expected


def test_a_context_pools_from_its_nearest_only_and_a_rebuilt_policy_pools_alike() -> None:
    near, far = np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])
    new = np.array([0.6, 0.8, 0.0])  # nearer to `far`
    chances = []
    for neighbours in (1, 2):
        # a high temperature weighs both alike: only the neighbour list tells them apart
        policy = PooledThompsonSampling(
            ["a", "b"], seed=0, context_dim=3, neighbours=neighbours, similarity_temperature=10.0
        )
        for _ in range(10):  # "a" wins near (1, 0, 0); "b" wins at (0, 1, 0)
            policy.update("a", 1.0, context=near)
            policy.update("b", 0.0, context=near)
            policy.update("a", 0.0, context=far)
            policy.update("b", 1.0, context=far)
        chances.append(policy.prob_best(context=new)["b"])
    assert chances[0] > 0.9  # one neighbour: `far` alone
    assert 0.3 < chances[1] < 0.7  # both: they cancel
    rebuilt = load_policy(policy.to_dict())
    for context in (near, far, new):
        assert np.array_equal(rebuilt.posterior(context), policy.posterior(context))  # type: ignore[attr-defined]
