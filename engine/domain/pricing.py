"""Cost in the reward: a user-set price that makes what the policies learn net of cost.

With a price, the reward a policy learns from is the reward net of the decision's cost, mapped
back onto [0, 1] by one affine map that is the same for every decision:

    charge  = min(worst, per_call * calls + per_second * seconds)
    learned = (reward - charge + worst) / (1 + worst)

where `calls` and `seconds` are the decision's LLM calls and seconds (`Decision.cost`: every
call of a multi-call procedure counted, failed ones too) and `worst` is the most a decision can
be charged (the budget's calls and seconds at that price). The map keeps the order of
`reward - charge`, so the arm with the higher expected net reward learns the higher mean: where
two arms are equally accurate the cheaper one wins, right or wrong.

Why not `clip(reward - charge, 0, 1)` (the first version): a wrong answer scored 0 whatever it
cost, so with a small model (right on about 1 question in 7 of the public suite) the price
reached the policies only through the rare right answers, and in the measurement of issue 20
the priced engine spent more calls per decision than the unpriced one, not fewer.

The stored outcome keeps the raw reward: the price applies only on its way into the policies,
so changing the price and replaying the log re-learns everything under the new price (the
checkpoint's fingerprint names the price, `engine.orchestration.checkpoints`).

The price is off (both 0) by default: `THINKPATH_COST_PER_CALL` and `THINKPATH_COST_PER_SECOND`
set it (`engine.settings`); off, the learned reward is the raw reward.

>>> price = CostPrice(per_call=0.1, per_second=0.01, max_calls=8, max_seconds=20.0)
>>> price.worst
1.0
>>> price.net(1.0, calls=3, seconds=5.0), price.net(1.0, calls=1, seconds=1.0)
(0.825, 0.945)
>>> price.net(0.0, calls=3, seconds=5.0), price.net(0.0, calls=1, seconds=1.0)
(0.325, 0.445)
>>> CostPrice().net(0.7, calls=9, seconds=99.0)  # off: the raw reward
0.7
"""

import math
from collections.abc import Mapping
from dataclasses import dataclass

from engine.errors import ConfigError

__all__ = ["CostPrice", "DrawPrice"]


@dataclass(frozen=True)
class CostPrice:
    """What one LLM call and one second of LLM time cost, in reward units (0 = free)."""

    per_call: float = 0.0
    per_second: float = 0.0
    # The most a decision can spend (the engine's budget), which bounds what it can be charged.
    max_calls: int = 8
    max_seconds: float = 120.0

    def __post_init__(self) -> None:
        for name in ("per_call", "per_second"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ConfigError(f"cost price {name} must be a number, got {value!r}")
            if not (math.isfinite(value) and 0.0 <= value <= 1.0):
                raise ConfigError(f"cost price {name} must be in [0, 1], got {value!r}")
        if isinstance(self.max_calls, bool) or not isinstance(self.max_calls, int):
            raise ConfigError(f"cost price max_calls must be an integer, got {self.max_calls!r}")
        if self.max_calls < 1:
            raise ConfigError(f"cost price max_calls must be at least 1, got {self.max_calls!r}")
        if not (isinstance(self.max_seconds, int | float) and self.max_seconds > 0):
            raise ConfigError(f"cost price max_seconds must be positive, got {self.max_seconds!r}")

    @property
    def active(self) -> bool:
        """Does the price change any reward?"""
        return self.per_call > 0 or self.per_second > 0

    @property
    def worst(self) -> float:
        """The most one decision can be charged: the budget's calls and seconds at this price."""
        return self.per_call * self.max_calls + self.per_second * self.max_seconds

    def net(self, reward: float, *, calls: int, seconds: float) -> float:
        """The reward net of the decision's cost, mapped onto [0, 1] (see the module docstring)."""
        if not self.active:
            return reward
        worst = self.worst
        charge = min(worst, self.per_call * calls + self.per_second * max(seconds, 0.0))
        learned = (reward - charge + worst) / (1.0 + worst)
        return round(min(1.0, max(0.0, learned)), 12)  # rounded: replays agree to the last bit


# A path's mean seconds are charged to the nearest 10 ms. Why: a model's time is not known closer
# than that (one call's seconds vary by more between runs), so paths whose means differ by less
# are alike to the draw, and paths charged alike are drawn as without a price: no charged
# quadrature of their own (`engine.orchestration.charged_draw`). A stand-in model that answers
# in microseconds is charged nothing, as a decision whose model took no time should be; a real
# model's paths (0.4-10 s apart, see below) are charged as before, within 0.0001 at 0.02.
SECONDS_DIGITS = 2  # `round`'s digits: 10 ms


@dataclass(frozen=True)
class DrawPrice:
    """What a second of waiting costs at the path draw, in reward units (0 = free).

    Where cost in the reward (`CostPrice`) is learned through the rewards' noise, this one is
    charged on the draw: the path policy's posterior stays the paths' accuracy, and each path's
    sampled value is lowered by `per_second` times its measured mean seconds on the kind
    (`engine.orchestration.path_seconds`) before the largest is taken. Of two paths equally
    right the faster then wins once their posteriors overlap, and a slower one is played only
    while it may be better by more than its extra seconds cost.

    The default, 0.02 (two points of accuracy per second waited): on a capital question that
    every path answers, the embedded model's one-call paths took 0.4-1 s and its long or
    multi-call ones 3-10 s (docs/benchmarks.md, issue 25 (f)), a charge of 0.05-0.2 between them.

    >>> DrawPrice().charges({"direct": 0.5, "steps": 9.0})
    {'direct': 0.01, 'steps': 0.18}
    >>> DrawPrice().charges({"direct": 0.0004, "steps": 0.0031})  # alike at 10 ms
    {'direct': 0.0, 'steps': 0.0}
    """

    per_second: float = 0.02

    def __post_init__(self) -> None:
        value = self.per_second
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"draw price per_second must be a number, got {value!r}")
        if not (math.isfinite(value) and 0.0 <= value <= 1.0):
            raise ConfigError(f"draw price per_second must be in [0, 1], got {value!r}")

    @property
    def active(self) -> bool:
        return self.per_second > 0

    @staticmethod
    def with_estimates(seconds: Mapping[str, float], calls: Mapping[str, int]) -> dict[str, float]:
        """Timed paths' mean seconds, and for each untimed path of `calls` an estimate: its
        calls times the seconds of one call on the cheapest timed path (that path's mean over
        its own calls). Why: a path timed nowhere was charged nothing, so a new engine explored
        its three-call paths as freely as its one-call ones, and a new kind's early decisions
        took several times a bare call (issue 40). With nothing timed, nothing is estimated.

        >>> DrawPrice.with_estimates({"direct": 0.8}, {"direct": 1, "vote": 3, "other": 1})
        {'direct': 0.8, 'vote': 2.4000000000000004, 'other': 0.8}
        """
        per_call = [s / max(calls.get(path, 1), 1) for path, s in seconds.items()]
        if not per_call:
            return dict(seconds)
        one_call = min(per_call)
        estimates = {path: n * one_call for path, n in calls.items() if path not in seconds}
        return {**seconds, **estimates}

    def charges(self, seconds: Mapping[str, float]) -> dict[str, float]:
        """Each timed path's charge (an untimed one is charged nothing), on its mean seconds
        to the nearest 10 ms (`SECONDS_DIGITS`)."""
        return {
            path: round(self.per_second * round(max(s, 0.0), SECONDS_DIGITS), 12)
            for path, s in seconds.items()
        }
