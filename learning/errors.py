"""Errors raised by the learning core, and the root of every ThinkPath error.

The root class lives here, in the innermost package, so that the pure core can raise errors that
belong to the one project-wide hierarchy without importing anything outward. `engine.errors`
extends it with the errors of the outer layers and draws the whole tree.

    ThinkPathError
    └── PolicyError                 (also a ValueError: every case is a bad argument)
        ├── InvalidRewardError      NaN, infinite or outside [0, 1]; or a bad weight
        ├── UnknownArmError         an arm the policy does not hold
        ├── DuplicateArmError       adding an arm that is already there
        ├── ContextError            missing, unexpected or wrongly shaped context
        ├── UnknownPolicyError      a policy name not in the registry
        ├── InvalidParameterError   an unknown or out-of-range policy parameter
        └── StateError              a state dict that is malformed or from a newer version
"""


class ThinkPathError(Exception):
    """Root of every error that ThinkPath raises on purpose."""


class PolicyError(ThinkPathError, ValueError):
    """A policy was given something it cannot accept; its state is unchanged."""


class InvalidRewardError(PolicyError):
    """A reward (or its weight) that is NaN, infinite or out of range."""


class UnknownArmError(PolicyError, KeyError):
    """An arm that the policy does not hold."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class DuplicateArmError(PolicyError):
    """Adding an arm that the policy already holds."""


class ContextError(PolicyError):
    """A context that is missing, not expected, or of the wrong shape."""


class UnknownPolicyError(PolicyError):
    """A policy name that is not registered."""


class InvalidParameterError(PolicyError):
    """A policy parameter that is unknown or out of its range."""


class StateError(PolicyError):
    """A state dict that is malformed, of another policy, or from a newer format version."""
