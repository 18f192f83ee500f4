"""The contract every policy keeps: arm bookkeeping, cheap validation and versioned plain state.

A policy holds its arms as indices into numpy arrays (the hot path never touches a dict of
arrays); `_index` maps an arm's name to its row. Every public method validates first and only
then mutates, so an error leaves the policy exactly as it was.

State is a plain JSON-safe dict::

    {"format_version": 1, "policy": "thompson", "params": {...}, "arms": [...],
     "rng": <numpy bit-generator state>, "stats": {...policy specific...}}

The generator's state travels with it, so a policy rebuilt by `load_policy` makes the same
decisions as the original from that point on.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, NamedTuple

import numpy as np
from numpy.typing import NDArray

from learning.errors import (
    ContextError,
    DuplicateArmError,
    InvalidParameterError,
    InvalidRewardError,
    PolicyError,
    StateError,
    UnknownArmError,
)
from learning.params import Param, ParamValue, resolve_params
from learning.posterior import MONTE_CARLO_DRAWS

FORMAT_VERSION = 1
FloatArray = NDArray[np.float64]

# Every policy understands these: when is an arm still cold (too little evidence to trust).
# The one source of both defaults (the engine's settings read them from here). The width is
# loose on purpose, so that the pulls decide: after 3 rewards a Beta(1 + s, 1 + f) posterior
# has a std of 0.16 (all alike) to 0.20 (mixed), so a width of 0.15 would keep every arm cold
# for 4 (alike) to 9 (mixed) pulls and leave `cold_pulls` without effect; with 13 templates and
# 10 query families that keeps the engine's rating call running for about a thousand decisions
# before the first warm one. 0.25 is above the std after 3 pulls, whatever the rewards were.
COLD_PULLS, COLD_WIDTH = 3.0, 0.25
COLD_PARAMS: Mapping[str, Param] = {
    "cold_pulls": Param(COLD_PULLS, low=0.0, doc="an arm with fewer (weighted) pulls is cold"),
    "cold_width": Param(
        COLD_WIDTH, low=0.0, low_open=True, doc="an arm whose posterior std exceeds this is cold"
    ),
}


def make_bits(seed: int | None) -> np.random.PCG64:
    """The bit generator `default_rng(seed)` would use (None: fresh entropy, saved in state)."""
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise InvalidParameterError(f"seed must be a non-negative integer or None, got {seed!r}")
    return np.random.PCG64(seed)


def check_arm_names(arms: Sequence[str]) -> list[str]:
    """Return the arms as a list after checking they are distinct non-empty strings."""
    if isinstance(arms, str) or not isinstance(arms, Sequence):
        raise InvalidParameterError(
            f"arms must be a sequence of strings, got {type(arms).__name__}"
        )
    names = list(arms)
    if not names:
        raise InvalidParameterError("a policy needs at least one arm")
    for arm in names:
        if not isinstance(arm, str) or not arm:
            raise InvalidParameterError(f"every arm must be a non-empty string, got {arm!r}")
    seen: set[str] = set()
    for arm in names:
        if arm in seen:
            raise DuplicateArmError(f"arm {arm!r} is listed twice")
        seen.add(arm)
    return names


class Explanation(NamedTuple):
    """A policy's view of its arms at one moment: propensities and P(best), arm by arm."""

    probabilities: dict[str, float]
    prob_best: dict[str, float]


class Policy(abc.ABC):
    """A bandit policy over named arms: select, update, explain, add/remove arms, save state."""

    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    is_contextual: ClassVar[bool] = False
    param_spec: ClassVar[Mapping[str, Param]] = COLD_PARAMS
    # True where `select` takes the argmax of one posterior draw: the propensity of an arm is
    # then its posterior probability of being best, and `explain` computes the two once.
    choice_is_posterior_draw: ClassVar[bool] = False
    # True where `_update` adds statistics linear in the weight, so that an update with the
    # weight negated undoes it (`retract`). False for policies that discount, forget or test
    # for change points: their past cannot be edited after the fact.
    can_retract: ClassVar[bool] = False

    def __init__(self, arms: Sequence[str], seed: int | None = None, **params: Any) -> None:
        self.params: dict[str, ParamValue] = resolve_params(self.name, self.param_spec, params)
        names = check_arm_names(arms)
        # Kept as a PCG64 (what `default_rng` builds) for its `jumped`, used by `_side_rng`.
        self._bits = make_bits(seed)
        self._rng = np.random.Generator(self._bits)
        self._arms = names
        self._index = {arm: i for i, arm in enumerate(names)}
        self._cold_pulls = float(self.params["cold_pulls"] or 0.0)
        self._cold_width = float(self.params["cold_width"] or 0.0)
        self._init_stats(len(names))

    # ---- what each policy supplies -------------------------------------------------------
    @abc.abstractmethod
    def _init_stats(self, arm_count: int, /) -> None:
        """Create the statistics of `arm_count` fresh arms."""

    @abc.abstractmethod
    def _select(self, context: FloatArray | None, /) -> int:
        """Index of the arm to play (context already validated)."""

    @abc.abstractmethod
    def _update(
        self, index: int, reward: float, weight: float, context: FloatArray | None, /
    ) -> None:
        """Learn from a validated (reward, weight) of arm `index`."""

    @abc.abstractmethod
    def _probabilities(self, context: FloatArray | None, /) -> FloatArray:
        """Probability that `select` returns each arm now, without consuming `_rng`."""

    @abc.abstractmethod
    def _prob_best(self, context: FloatArray | None, /) -> FloatArray:
        """Probability (exact, Monte Carlo or documented approximation) that each arm is best."""

    @abc.abstractmethod
    def _evidence(self, index: int, context: FloatArray | None, /) -> tuple[float, float]:
        """(effective pulls, posterior std of the mean reward) of arm `index`."""

    @abc.abstractmethod
    def _append_arm(self) -> None:
        """Grow the statistics by one fresh arm at the end."""

    @abc.abstractmethod
    def _delete_arm(self, index: int, /) -> None:
        """Drop the statistics of arm `index`."""

    @abc.abstractmethod
    def _stats_to_dict(self) -> dict[str, Any]:
        """The statistics as JSON-safe values."""

    @abc.abstractmethod
    def _stats_from_dict(self, stats: Mapping[str, Any], /) -> None:
        """Restore statistics written by `_stats_to_dict`; raise StateError if malformed."""

    # ---- the public contract ---------------------------------------------------------------
    @property
    def arms(self) -> list[str]:
        """The arms, in order."""
        return list(self._arms)

    def select(self, context: Any = None) -> str:
        """Choose an arm for this step."""
        return self._arms[self._select(self._check_context(context))]

    def update(self, arm: str, reward: float, context: Any = None, weight: float = 1.0) -> None:
        """Learn that `arm` earned `reward` in [0, 1], counted as a `weight` in (0, 1] pull."""
        index = self._arm_index(arm)
        check_reward(reward, weight)
        self._update(index, float(reward), float(weight), self._check_context(context))

    def retract(self, arm: str, reward: float, context: Any = None, weight: float = 1.0) -> None:
        """Undo one earlier `update(arm, reward, context, weight)`: the share of an outcome that
        a correction replaced. Only where `can_retract`; the caller retracts what it added."""
        if not self.can_retract:
            raise PolicyError(f"policy {self.name!r} cannot retract an update it learned")
        index = self._arm_index(arm)
        check_reward(reward, weight)
        self._update(index, float(reward), -float(weight), self._check_context(context))

    def probabilities(self, context: Any = None) -> dict[str, float]:
        """Propensity: the probability that `select` returns each arm in the current state."""
        return self._as_dict(self._probabilities(self._check_context(context)))

    def prob_best(self, context: Any = None) -> dict[str, float]:
        """Probability that each arm has the highest mean reward (see each policy's notes)."""
        return self._as_dict(self._prob_best(self._check_context(context)))

    def explain(self, context: Any = None) -> Explanation:
        """`probabilities` and `prob_best` together, from one posterior computation where they
        are the same quantity (Thompson sampling); the values equal the two separate calls."""
        checked = self._check_context(context)
        probabilities = self._probabilities(checked)
        best = probabilities if self.choice_is_posterior_draw else self._prob_best(checked)
        return Explanation(self._as_dict(probabilities), self._as_dict(best))

    def is_cold(self, arm: str, context: Any = None) -> bool:
        """True while `arm` has fewer than `cold_pulls` pulls or a posterior std > `cold_width`."""
        index = self._arm_index(arm)
        pulls, std = self._evidence(index, self._check_context(context))
        return pulls < self._cold_pulls or std > self._cold_width

    def cold_arms(self, context: Any = None) -> list[str]:
        """The arms that `is_cold` holds for, in arm order.

        Why not `is_cold` per arm: a decision asks it of every arm of two policies, and each
        call checked the context again (a 384-number vector); here it is checked once, and a
        policy whose evidence is one table reads every arm from it at once (`_cold_flags`).
        """
        return [
            arm
            for arm, cold in zip(
                self._arms, self._cold_flags(self._check_context(context)), strict=True
            )
            if cold
        ]

    def _cold_flags(self, context: FloatArray | None, /) -> list[bool]:
        """`is_cold` of every arm, in order, for a checked context."""
        flags = []
        for index in range(len(self._arms)):
            pulls, std = self._evidence(index, context)
            flags.append(pulls < self._cold_pulls or std > self._cold_width)
        return flags

    def add_arm(self, arm: str) -> None:
        """Add a fresh arm at the end (its statistics start at the prior)."""
        if not isinstance(arm, str) or not arm:
            raise InvalidParameterError(f"an arm must be a non-empty string, got {arm!r}")
        if arm in self._index:
            raise DuplicateArmError(f"arm {arm!r} is already in policy {self.name!r}")
        self._append_arm()
        self._index[arm] = len(self._arms)
        self._arms.append(arm)

    def remove_arm(self, arm: str) -> None:
        """Remove an arm and forget its statistics; the last arm cannot be removed."""
        index = self._arm_index(arm)
        if len(self._arms) == 1:
            raise PolicyError(f"cannot remove {arm!r}: a policy needs at least one arm")
        self._delete_arm(index)
        del self._arms[index]
        self._index = {name: i for i, name in enumerate(self._arms)}

    def to_dict(self) -> dict[str, Any]:
        """The whole state as a versioned, JSON-safe dict; `load_policy` rebuilds it exactly."""
        return {
            "format_version": FORMAT_VERSION,
            "policy": self.name,
            "params": dict(self.params),
            "arms": list(self._arms),
            "rng": self._bits.state,
            "stats": self._stats_to_dict(),
        }

    @classmethod
    def from_dict(cls, state: Mapping[str, Any]) -> Policy:
        """Rebuild a policy of this class from `to_dict` output (checked by `load_policy`)."""
        params = state.get("params")
        if not isinstance(params, Mapping):
            raise StateError("state 'params' must be a dict")
        arms = state.get("arms")
        if not isinstance(arms, list):
            raise StateError("state 'arms' must be a list")
        stats = state.get("stats")
        if not isinstance(stats, Mapping):
            raise StateError("state 'stats' must be a dict")
        try:
            policy = cls(arms, seed=None, **params)
        except PolicyError as error:
            raise StateError(f"state does not describe a valid {cls.name!r}: {error}") from error
        try:
            policy._bits.state = state.get("rng")  # type: ignore[assignment]
        except (TypeError, ValueError, KeyError) as error:
            raise StateError(f"state 'rng' is not a numpy generator state: {error}") from error
        policy._stats_from_dict(stats)
        return policy

    def __repr__(self) -> str:
        return f"{type(self).__name__}(arms={self._arms!r}, params={self.params!r})"

    # ---- shared checks -----------------------------------------------------------------
    def _arm_index(self, arm: str) -> int:
        index = self._index.get(arm)
        if index is None:
            raise UnknownArmError(f"unknown arm {arm!r}; policy {self.name!r} has {self._arms!r}")
        return index

    def _check_context(self, context: Any) -> FloatArray | None:
        if context is not None:
            raise ContextError(f"policy {self.name!r} is not contextual, but got a context")
        return None

    def _as_dict(self, values: FloatArray) -> dict[str, float]:
        return dict(zip(self._arms, values.tolist(), strict=True))

    def _side_rng(self) -> np.random.Generator:
        """A generator derived from the current state that leaves `_rng`'s stream untouched.

        The jumped stream is 2^128 steps ahead, so its draws are independent of the next
        `select`, and the same state always gives the same estimate.
        """
        return np.random.Generator(self._bits.jumped())

    _monte_carlo_draws: ClassVar[int] = MONTE_CARLO_DRAWS


def check_reward(reward: Any, weight: Any) -> None:
    """Raise `InvalidRewardError` unless 0 <= reward <= 1 and 0 < weight <= 1 (NaN fails both)."""
    try:
        reward_ok = 0.0 <= reward <= 1.0
        weight_ok = 0.0 < weight <= 1.0
    except (TypeError, ValueError):  # not a number, or an array (ambiguous truth value)
        raise InvalidRewardError(
            f"reward and weight must be numbers, got {reward!r} and {weight!r}"
        ) from None
    if not reward_ok:
        raise InvalidRewardError(f"reward must be a finite number in [0, 1], got {reward!r}")
    if not weight_ok:
        raise InvalidRewardError(f"weight must be a finite number in (0, 1], got {weight!r}")


def array_from_state(stats: Mapping[str, Any], key: str, shape: tuple[int, ...]) -> FloatArray:
    """Read `stats[key]` as a finite float array of `shape`, or raise StateError naming it."""
    try:
        array = np.array(stats[key], dtype=np.float64)
    except (KeyError, TypeError, ValueError) as error:
        raise StateError(f"state stats {key!r} is missing or not numeric: {error}") from error
    if array.shape != shape:
        raise StateError(f"state stats {key!r} has shape {array.shape}, expected {shape}")
    if not np.isfinite(array).all():
        raise StateError(f"state stats {key!r} holds NaN or infinite values")
    return array
