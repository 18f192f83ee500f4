"""Errors of the retrieval layer (part of the tree drawn in `engine.errors`).

RetrievalError                  a search backend failed
├── QueryError                  (also ValueError) empty, oversized or otherwise unusable query
├── SearchUnavailableError      a backend cannot answer now: network down, timeout, rate limit
├── IndexStoreError             the local index file is unusable (corrupt, locked, foreign)
│   └── EmbeddingMismatchError  the index holds vectors of another embedding model
└── EmbeddingError              the embedding model cannot be loaded or run
"""

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
