"""Pure bandit policies (numpy and scipy only, no IO): ThinkPath's learning core.

>>> from learning import make_policy, load_policy
>>> policy = make_policy("thompson", arms=["a", "b", "c"], seed=7)
>>> arm = policy.select()
>>> policy.update(arm, 0.8)
>>> round(sum(policy.probabilities().values()), 9)
1.0
>>> load_policy(policy.to_dict()).select() == policy.select()
True

The names below load on first use, so that importing a leaf such as `learning.errors` (the root
of every ThinkPath error, which `templates` and `retrieval` import) costs no numpy or scipy.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from learning.base import Policy
    from learning.contract import PolicyLike
    from learning.keyed import KeyedPolicy
    from learning.registry import available_policies, describe_policy, load_policy, make_policy

__all__ = [
    "KeyedPolicy",
    "Policy",
    "PolicyLike",
    "available_policies",
    "describe_policy",
    "load_policy",
    "make_policy",
]

_HOMES = {
    "KeyedPolicy": "learning.keyed",
    "Policy": "learning.base",
    "PolicyLike": "learning.contract",
    "available_policies": "learning.registry",
    "describe_policy": "learning.registry",
    "load_policy": "learning.registry",
    "make_policy": "learning.registry",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'learning' has no attribute {name!r}")
    return getattr(import_module(home), name)
