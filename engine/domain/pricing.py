"""Cost in the reward: a user-set price that makes what the policies learn net of cost.

With a price, the reward a policy learns from is

    learned = clip(reward - per_call * calls - per_second * seconds, 0, 1)

where `calls` and `seconds` are the decision's LLM calls and seconds (`Decision.cost`: every
call of a multi-call procedure counted, failed ones too). Where two arms are equally accurate,
the cheaper one then earns more and the bandit comes to prefer it. The stored outcome keeps the
raw reward: the price applies only on its way into the policies, so changing the price and
replaying the log re-learns everything under the new price (the checkpoint's fingerprint names
the price, `engine.orchestration.checkpoints`).

The price is off (both 0) by default: `THINKPATH_COST_PER_CALL` and `THINKPATH_COST_PER_SECOND`
set it (`engine.settings`).

>>> price = CostPrice(per_call=0.1, per_second=0.01)
>>> price.net(1.0, calls=3, seconds=5.0)
0.65
>>> price.net(0.2, calls=3, seconds=5.0)  # never below 0
0.0
>>> CostPrice().net(0.7, calls=9, seconds=99.0)  # off: the raw reward
0.7
"""

import math
from dataclasses import dataclass

from engine.errors import ConfigError

__all__ = ["CostPrice"]


@dataclass(frozen=True)
class CostPrice:
    """What one LLM call and one second of LLM time cost, in reward units (0 = free)."""

    per_call: float = 0.0
    per_second: float = 0.0

    def __post_init__(self) -> None:
        for name in ("per_call", "per_second"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ConfigError(f"cost price {name} must be a number, got {value!r}")
            if not (math.isfinite(value) and 0.0 <= value <= 1.0):
                raise ConfigError(f"cost price {name} must be in [0, 1], got {value!r}")

    @property
    def active(self) -> bool:
        """Does the price change any reward?"""
        return self.per_call > 0 or self.per_second > 0

    def net(self, reward: float, *, calls: int, seconds: float) -> float:
        """The reward net of the decision's cost, clipped to [0, 1]."""
        if not self.active:
            return reward
        charged = reward - self.per_call * calls - self.per_second * max(seconds, 0.0)
        return round(min(1.0, max(0.0, charged)), 12)  # rounded: replays agree to the last bit
