"""Build a learning-core policy for a problem with or without a context, by name.

Which policies read a context is the registry's knowledge (`learning.registry.reads_context`).
A context-free policy in a contextual problem is allowed: it simply ignores the context, which is
the baseline a contextual policy must beat.
"""

from typing import Any

from learning import PolicyLike, make_policy
from learning.registry import available_policies, reads_context

__all__ = ["build_policy", "fitting_policies", "takes_context"]


def takes_context(name: str, context_dim: int | None) -> bool:
    """Whether policy `name`, built for a problem with `context_dim`, reads the context."""
    return context_dim is not None and reads_context(name)


def build_policy(name: str, arms: list[str], seed: int, context_dim: int | None) -> PolicyLike:
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
    # `auto` reads a context only when there is one; without, it builds a context-free policy.
    return [name for name in available_policies() if name == "auto" or not reads_context(name)]
