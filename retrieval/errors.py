"""Errors of the retrieval layer; the whole tree is drawn once, in `engine.errors`."""

from learning.errors import ThinkPathError


class RetrievalError(ThinkPathError):
    """A search backend failed: unreachable network, unusable index or unusable query."""


class QueryError(RetrievalError, ValueError):
    """A query that cannot be searched: empty, too long, or not a string."""


class SearchUnavailableError(RetrievalError):
    """A backend cannot answer now (network unreachable, timeout, rate limit); try another."""


class IndexStoreError(RetrievalError):
    """The local index database is unusable: corrupt, locked, or not a ThinkPath index."""


class EmbeddingMismatchError(IndexStoreError):
    """The index's vectors come from another embedding model than the one offered."""


class EmbeddingError(RetrievalError):
    """The embedding model cannot be loaded or run."""
