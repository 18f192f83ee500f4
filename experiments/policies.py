"""Build a learning-core policy for a problem with or without a context, by name.

Policies declare `is_contextual`; `auto` has no class and becomes a contextual policy exactly when
it is given a `context_dim` (see `learning.auto`). A context-free policy in a contextual
problem is allowed: it simply ignores the context, which is the baseline a contextual policy
must beat.
"""

from typing import Any

from learning import Policy, make_policy
from learning.registry import available_policies, policy_class

__all__ = ["build_policy", "fitting_policies", "takes_context"]

_ADAPTIVE = {"auto"}  # contextual exactly when given a context_dim


def takes_context(name: str, context_dim: int | None) -> bool:
    """Whether policy `name`, built for a problem with `context_dim`, reads the context."""
    if context_dim is None:
        return False
    if name in _ADAPTIVE:
        return True
    return policy_class(name).is_contextual


def build_policy(name: str, arms: list[str], seed: int, context_dim: int | None) -> Policy:
    """`make_policy` with a context_dim exactly for the policies that take one.

    Raises the learning core's `UnknownPolicyError` for an unknown name, and its `ContextError`
    or `InvalidParameterError` for a contextual policy in a problem without context.
    """
    params: dict[str, Any] = {}
    if takes_context(name, context_dim):
        params["context_dim"] = context_dim
    return make_policy(name, arms=arms, seed=seed, **params)


def fitting_policies(context_dim: int | None) -> list[str]:
    """Every registered policy that uses what the problem offers: a context, or none."""
    if context_dim is not None:
        return [name for name in available_policies() if takes_context(name, context_dim)]
    return [
        name
        for name in available_policies()
        if name in _ADAPTIVE or not policy_class(name).is_contextual
    ]
