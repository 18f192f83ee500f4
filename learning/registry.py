"""The policy registry: build a policy by name, rebuild one from its state, list what exists."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from learning import auto
from learning.base import FORMAT_VERSION, Policy
from learning.bayes_ucb import BayesUCB, ContextualBayesUCB
from learning.contextual_thompson import ContextualThompsonSampling
from learning.contract import PolicyLike
from learning.discounted_thompson import DiscountedThompsonSampling
from learning.epsilon_greedy import EpsilonGreedy
from learning.errors import StateError, UnknownPolicyError
from learning.glr_thompson import GLRThompsonSampling
from learning.keyed import KeyedPolicy
from learning.kl_ucb import KLUCB
from learning.lin_ts import LinTS
from learning.lin_ucb import LinUCB
from learning.pooled_thompson import PooledBayesUCB, PooledThompsonSampling
from learning.sliding_window_ucb import SlidingWindowUCB
from learning.thompson import ThompsonSampling
from learning.ucb import UCB1

# Every policy, in the order `describe` lists them; the registry is keyed by each class's `name`.
_POLICY_CLASSES: tuple[type[Policy], ...] = (
    ThompsonSampling,
    UCB1,
    KLUCB,
    EpsilonGreedy,
    DiscountedThompsonSampling,
    SlidingWindowUCB,
    GLRThompsonSampling,
    LinUCB,
    LinTS,
    ContextualThompsonSampling,
    PooledThompsonSampling,
    PooledBayesUCB,
    BayesUCB,
    ContextualBayesUCB,
)
_POLICIES: dict[str, type[Policy]] = {policy.name: policy for policy in _POLICY_CLASSES}


AUTO = "auto"


def available_policies() -> list[str]:
    """Names of every registered policy and of `auto` (the documented default choice), sorted.

    >>> "thompson" in available_policies(), "auto" in available_policies()
    (True, True)
    """
    return sorted([*_POLICIES, AUTO])


def policy_class(name: str) -> type[Policy]:
    """The class registered under `name`, or `UnknownPolicyError` listing the known names.

    `auto` has no class of its own: it builds one of the others (see `learning.auto`).
    """
    try:
        return _POLICIES[name]
    except (KeyError, TypeError):
        known = ", ".join(available_policies())
        raise UnknownPolicyError(f"unknown policy {name!r}; known policies: {known}") from None


def reads_context(name: str) -> bool:
    """Whether `make_policy(name, ..., context_dim=d)` uses the context's values.

    True for the natively contextual policies and for `auto` (which then builds one); False for
    the others, which given a `context_dim` learn per distinct context instead (`KeyedPolicy`).

    >>> reads_context("lints"), reads_context("auto"), reads_context("thompson")
    (True, True, False)
    """
    return name == AUTO or policy_class(name).is_contextual


def describe_policy(name: str) -> str:
    """A one-line summary of the policy registered under `name`.

    >>> describe_policy("thompson")
    'Beta-Bernoulli Thompson sampling (stationary default)'
    """
    if name == AUTO:
        return auto.SUMMARY
    return policy_class(name).summary


def make_policy(
    name: str, arms: Sequence[str], seed: int | None = None, **params: Any
) -> PolicyLike:
    """Build the policy registered under `name` over `arms`; the same seed gives the same choices.

    Every policy takes a `context_dim`: a contextual one uses the context's values, any other
    runs one copy of itself per distinct context (`KeyedPolicy`), so the two kinds are
    interchangeable wherever queries come with features.

    >>> policy = make_policy("thompson", arms=["a", "b", "c"], seed=7)
    >>> policy.arms
    ['a', 'b', 'c']
    >>> make_policy("auto", arms=["a", "b"]).name  # auto reports the policy it chose
    'glr_thompson'
    >>> make_policy("ucb1", arms=["a", "b"], context_dim=3).is_contextual
    True
    """
    if name == AUTO:
        return auto.make_auto(_POLICIES, arms, seed, params)
    chosen = policy_class(name)
    if params.get("context_dim") is not None and not chosen.is_contextual:
        return KeyedPolicy(chosen, arms, seed=seed, **params)
    return chosen(arms, seed=seed, **params)


def load_policy(state: Mapping[str, Any]) -> PolicyLike:
    """Rebuild a policy from `Policy.to_dict()` output; it behaves exactly as the saved one would.

    >>> policy = make_policy("thompson", arms=["a", "b"], seed=3)
    >>> copy = load_policy(policy.to_dict())
    >>> [policy.select() for _ in range(5)] == [copy.select() for _ in range(5)]
    True
    """
    if not isinstance(state, Mapping):
        raise StateError(f"a policy state must be a dict, got {type(state).__name__}")
    version = state.get("format_version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise StateError(f"state 'format_version' must be a positive integer, got {version!r}")
    if version > FORMAT_VERSION:
        raise StateError(
            f"state format_version {version} is newer than this ThinkPath reads ({FORMAT_VERSION})"
        )
    name = state.get("policy")
    if not isinstance(name, str) or name not in _POLICIES:
        raise StateError(f"state names unknown policy {name!r}; known: {available_policies()}")
    if state.get("keyed_by_context") is True:
        return KeyedPolicy.from_dict(_POLICIES[name], state)
    return _POLICIES[name].from_dict(state)
