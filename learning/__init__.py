"""Pure bandit policies (numpy and scipy only, no IO): ThinkPath's learning core.

>>> from learning import make_policy, load_policy
>>> policy = make_policy("thompson", arms=["a", "b", "c"], seed=7)
>>> arm = policy.select()
>>> policy.update(arm, 0.8)
>>> round(sum(policy.probabilities().values()), 9)
1.0
>>> load_policy(policy.to_dict()).select() == policy.select()
True
"""

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
