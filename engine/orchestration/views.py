"""What the arm book hands out: immutable views of the policies at one moment.

The pipeline reads these and never the policies themselves, so no lock is held during an LLM
call and nothing it holds changes under it.
"""

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from engine.domain.records import PathDefinition
from engine.stages import selection

__all__ = ["PolicyView", "SeedChoice", "frozen", "probability_mass"]


@dataclass(frozen=True)
class PolicyView:
    """What the policies say about one query, read at one moment; never changes afterwards."""

    live: tuple[PathDefinition, ...]
    cold_paths: tuple[str, ...]
    cold_tools: tuple[str, ...]
    prob_best: Mapping[str, float]  # rounded, for the record
    propensities: Mapping[str, float]  # rounded, for the record
    exact_propensities: Mapping[str, float]
    recent: tuple[float, ...]
    path_draw: selection.Pick  # the policies' own choices, drawn in this state
    tool_draw: selection.Pick
    cold_tool_mass: float  # the tool policy's probability of drawing a cold tool
    tool_probabilities: Mapping[str, float]  # exact, for a fallback after a tool refuses
    # what the path draw charged each timed path (`DrawPrice`); empty where it charged none
    path_charges: Mapping[str, float] = field(default_factory=dict)

    @property
    def live_detours(self) -> list[str]:
        return [p.arm_id for p in self.live if p.origin == "detour"]

    @property
    def cold_detours(self) -> list[str]:
        return [arm for arm in self.live_detours if arm in self.cold_paths]

    @property
    def cold_path_mass(self) -> float:
        """The path policy's probability of drawing a cold arm."""
        return probability_mass(self.exact_propensities, self.cold_paths)

    @property
    def draws_cold(self) -> bool:
        """Did either policy choose to explore a cold arm?"""
        return self.path_draw.arm in self.cold_paths or self.tool_draw.arm in self.cold_tools


@dataclass(frozen=True)
class SeedChoice:
    """The seed role's draw for one query: build a seed or not, and its probability of building
    one for this kind of query."""

    use: bool
    probability: float


def frozen(values: Mapping[str, float]) -> Mapping[str, float]:
    return MappingProxyType({key: float(value) for key, value in values.items()})


def probability_mass(probabilities: Mapping[str, float], arms: Iterable[str]) -> float:
    """The probability of drawing any of `arms`: a sum that rounding could push past 1 (a
    propensity of 1.0000000000000002 failed the store's validation), so capped at 1.

    >>> shares = [0.05383017413698619, 0.3395062870351673, 0.30599004231012344,
    ...           0.10218797540377206, 0.19848552111395115]  # normalised: their sum rounds up
    >>> math.fsum(shares), probability_mass(dict(zip("abcde", shares)), "abcde")
    (1.0000000000000002, 1.0)
    """
    return min(1.0, math.fsum(probabilities.get(arm, 0.0) for arm in arms))
