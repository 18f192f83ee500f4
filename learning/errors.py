"""Errors raised by the learning core, and the root of every ThinkPath error.

The root lives here, in the innermost package, in a module that imports nothing: every layer can
raise errors of the one project-wide hierarchy without importing anything outward, and, since
`learning/__init__` loads its names lazily, importing this leaf loads no numpy or scipy (a test
in `tests/unit/test_layers.py` holds both). The whole tree is drawn once, in `engine.errors`.
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
