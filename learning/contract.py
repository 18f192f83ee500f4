"""What every policy built by `make_policy` offers, whether it is a `Policy` or a `KeyedPolicy`.

Callers (the engine, the experiments) code to this protocol, so a non-contextual policy that
runs per context key and a natively contextual one are interchangeable.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from learning.base import Explanation
from learning.params import ParamValue


class PolicyLike(Protocol):
    """The public contract of a bandit policy over named arms."""

    @property
    def name(self) -> str: ...

    @property
    def params(self) -> dict[str, ParamValue]: ...

    @property
    def is_contextual(self) -> bool: ...

    @property
    def arms(self) -> list[str]: ...

    def select(self, context: np.ndarray | None = None) -> str: ...

    def update(
        self, arm: str, reward: float, context: np.ndarray | None = None, weight: float = 1.0
    ) -> None: ...

    @property
    def can_retract(self) -> bool:
        """Whether `retract` can undo an update (statistics that are sums)."""
        ...

    def retract(
        self, arm: str, reward: float, context: np.ndarray | None = None, weight: float = 1.0
    ) -> None: ...

    def probabilities(self, context: np.ndarray | None = None) -> dict[str, float]: ...

    def prob_best(self, context: np.ndarray | None = None) -> dict[str, float]: ...

    def explain(self, context: np.ndarray | None = None) -> Explanation: ...

    def is_cold(self, arm: str, context: np.ndarray | None = None) -> bool: ...

    def cold_arms(self, context: np.ndarray | None = None) -> list[str]:
        """The arms that `is_cold` holds for, in arm order (one call for all of them)."""
        ...

    def add_arm(self, arm: str) -> None: ...

    def remove_arm(self, arm: str) -> None: ...

    def to_dict(self) -> dict[str, Any]: ...
