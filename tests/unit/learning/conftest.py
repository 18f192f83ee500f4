"""Test doubles for the policy tests: a seeded stub environment and a policy factory."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from learning import PolicyLike, available_policies, make_policy
from learning.registry import policy_class

CONTEXT_DIM = 3
KEYED = "@keyed"  # a non-contextual policy given a context_dim: it runs per context


def variants() -> list[str]:
    """Every registered policy, and each non-contextual one once more as a keyed policy."""
    names = available_policies()
    plain = [n for n in names if n != "auto" and not policy_class(n).is_contextual]
    return [*names, *(name + KEYED for name in plain)]


def build(variant: str, arms: list[str], seed: int | None = 0, **params: Any) -> PolicyLike:
    """Make a policy variant; contextual and keyed ones get `context_dim=CONTEXT_DIM`."""
    name = variant.removesuffix(KEYED)
    if variant.endswith(KEYED) or name == "auto" or policy_class(name).is_contextual:
        params.setdefault("context_dim", CONTEXT_DIM)
    return make_policy(name, arms=arms, seed=seed, **params)


@dataclass
class StubEnvironment:
    """Bernoulli arms whose means depend on a one-hot context (one best arm per context).

    For a non-contextual policy the context is still drawn (so both kinds see the same stream)
    but not shown to it, and the means of context 0 are used throughout.
    """

    means: np.ndarray  # (contexts, arms)
    seed: int = 0
    rng: np.random.Generator = field(init=False)

    def __post_init__(self) -> None:
        self.rng = np.random.default_rng(self.seed)

    def context(self, policy: PolicyLike) -> tuple[int, np.ndarray | None]:
        """A context index, and the vector to show `policy` (None if it is not contextual)."""
        if not policy.is_contextual:
            return 0, None
        index = int(self.rng.integers(self.means.shape[0]))
        return index, np.eye(self.means.shape[0])[index]

    def reward(self, context: int, arm: int) -> float:
        return float(self.rng.random() < self.means[context, arm])


def stub_environment(seed: int = 0) -> StubEnvironment:
    """Three arms, three contexts; in context c the best arm is c (mean 0.8, others 0.3)."""
    means = np.full((CONTEXT_DIM, CONTEXT_DIM), 0.3)
    np.fill_diagonal(means, 0.8)
    return StubEnvironment(means=means, seed=seed)


def run(policy: PolicyLike, env: StubEnvironment, steps: int) -> list[tuple[int, str]]:
    """Play `steps` rounds of `policy` in `env`; return the (context index, arm) of each."""
    chosen = []
    for _ in range(steps):
        context_index, context = env.context(policy)
        arm = policy.select(context=context)
        policy.update(arm, env.reward(context_index, policy.arms.index(arm)), context=context)
        chosen.append((context_index, arm))
    return chosen
