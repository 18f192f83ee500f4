"""Baseline policies that learn nothing: the floor (uniform random) and a fixed choice.

Both speak the learning core's contract (`arms`, `is_contextual`, `select`, `update`,
`probabilities`), so they run wherever a policy does and give exact propensities for logs.

>>> policy = FixedArmPolicy(["a", "b"], "b")
>>> policy.select(), policy.probabilities()
('b', {'a': 0.0, 'b': 1.0})
"""

from collections.abc import Sequence

import numpy as np

from engine.errors import UnknownArmError

__all__ = ["FixedArmPolicy", "UniformRandomPolicy"]


class _NonLearning:
    """The baselines' shared part: their arms, and an update that only checks the arm."""

    is_contextual = False

    def __init__(self, arms: Sequence[str]) -> None:
        self._arms = list(arms)

    @property
    def arms(self) -> list[str]:
        return list(self._arms)

    # It learns nothing, but checks the arm as every policy does.
    def update(
        self,
        arm: str,
        reward: float,  # noqa: ARG002 - the contract
        context: np.ndarray | None = None,  # noqa: ARG002 - the contract
        weight: float = 1.0,  # noqa: ARG002 - the contract
    ) -> None:
        if arm not in self._arms:
            raise UnknownArmError(f"unknown arm {arm!r}")


class UniformRandomPolicy(_NonLearning):
    """The floor every policy must beat: each arm with equal probability, learning nothing."""

    name = "random"

    def __init__(self, arms: Sequence[str], seed: int | None = None) -> None:
        super().__init__(arms)
        self._rng = np.random.default_rng(seed)

    def select(self, context: np.ndarray | None = None) -> str:  # noqa: ARG002 - the contract
        return self._arms[int(self._rng.integers(len(self._arms)))]

    def probabilities(self, context: np.ndarray | None = None) -> dict[str, float]:  # noqa: ARG002
        return dict.fromkeys(self._arms, 1.0 / len(self._arms))


class FixedArmPolicy(_NonLearning):
    """Always the same arm: the 'best single fixed template' baseline, and a test fixture."""

    name = "fixed"

    def __init__(self, arms: Sequence[str], arm: str) -> None:
        if arm not in arms:
            raise UnknownArmError(f"unknown arm {arm!r}; the arms are {list(arms)}")
        super().__init__(arms)
        self._arm = arm

    def select(self, context: np.ndarray | None = None) -> str:  # noqa: ARG002 - the contract
        return self._arm

    def probabilities(self, context: np.ndarray | None = None) -> dict[str, float]:  # noqa: ARG002
        return {arm: float(arm == self._arm) for arm in self._arms}
