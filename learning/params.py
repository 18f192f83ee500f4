"""Declared policy parameters: a default and a range, checked once when a policy is built."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from learning.errors import InvalidParameterError

ParamValue = float | int | None


@dataclass(frozen=True)
class Param:
    """One tunable parameter of a policy: its default, its range and a one-line meaning.

    >>> Param(0.1, low=0.0, high=1.0).check("epsilon", 0.5)
    0.5
    >>> Param(0.1, low=0.0, high=1.0).check("epsilon", 2.0)
    Traceback (most recent call last):
    ...
    learning.errors.InvalidParameterError: parameter 'epsilon' must be in [0.0, 1.0], got 2.0
    """

    default: ParamValue
    low: float = -math.inf
    high: float = math.inf
    low_open: bool = False
    high_open: bool = False
    integer: bool = False
    optional: bool = False
    doc: str = ""

    def check(self, name: str, value: Any) -> ParamValue:
        """Return `value` as this parameter's type, or raise `InvalidParameterError` naming it."""
        if value is None:
            if self.optional:
                return None
            raise InvalidParameterError(f"parameter {name!r} may not be None")
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InvalidParameterError(
                f"parameter {name!r} must be a number, got {type(value).__name__}"
            )
        if self.integer and (isinstance(value, float) and not value.is_integer()):
            raise InvalidParameterError(f"parameter {name!r} must be an integer, got {value!r}")
        number = int(value) if self.integer else float(value)
        if not math.isfinite(number) or not self._in_range(number):
            raise InvalidParameterError(
                f"parameter {name!r} must be in {self._range_text()}, got {value!r}"
            )
        return number

    def _in_range(self, number: float) -> bool:
        above = number > self.low if self.low_open else number >= self.low
        below = number < self.high if self.high_open else number <= self.high
        return above and below

    def _range_text(self) -> str:
        left = "(" if self.low_open else "["
        right = ")" if self.high_open else "]"
        return f"{left}{self.low}, {self.high}{right}"


def resolve_params(
    policy: str, spec: Mapping[str, Param], given: Mapping[str, Any]
) -> dict[str, ParamValue]:
    """Check `given` against `spec` and fill in defaults; unknown names raise, naming them."""
    unknown = sorted(set(given) - set(spec))
    if unknown:
        known = ", ".join(sorted(spec)) or "none"
        raise InvalidParameterError(
            f"unknown parameter(s) {', '.join(map(repr, unknown))} for policy {policy!r}; "
            f"known: {known}"
        )
    missing = sorted(
        name
        for name, param in spec.items()
        if name not in given and param.default is None and not param.optional
    )
    if missing:
        raise InvalidParameterError(
            f"policy {policy!r} needs parameter(s) {', '.join(map(repr, missing))}"
        )
    return {
        name: param.check(name, given[name]) if name in given else param.default
        for name, param in spec.items()
    }
