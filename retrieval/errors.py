"""Errors of the retrieval layer (part of the tree drawn in `engine.errors`)."""

from learning.errors import ThinkPathError


class RetrievalError(ThinkPathError):
    """A search backend failed: unreachable network, unusable index or unusable query."""
