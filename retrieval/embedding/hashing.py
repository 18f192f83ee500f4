"""A feature-hashing embedder: deterministic, dependency-free, and weak on meaning.

It maps each word to a signed bucket (blake2b, so stable across processes) and normalises the
counts. Words are compared only for identity, so it knows no synonyms; it exists for tests and as
a stand-in that exercises the whole vector path where no model may be installed.
"""

import functools
import hashlib
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from retrieval.errors import EmbeddingError
from retrieval.query import words

# The cosine at which a query joins a kind of query with these vectors, measured as MiniLM's was
# (docs/benchmarks.md, "Kinds of query", the hashing fall-back): ARI 0.737 at 0.60 against 0.539
# at MiniLM's 0.45; shared words make even unlike queries fairly alike, so it lies higher.
HASHING_KIND_THRESHOLD = 0.6
# Raised whenever the buckets or the weighting change, so that a kind log knows its vectors.
HASHING_VERSION = "1"


class HashingEmbedder:
    """Bag-of-words vectors hashed into `dimension` buckets, L2-normalised (zero for no words).

    >>> embedder = HashingEmbedder(dimension=64)
    >>> vectors = embedder.embed(["leap year rule", "the leap year rule", "unit prices"])
    >>> bool(vectors[0] @ vectors[1] > vectors[0] @ vectors[2])
    True
    """

    def __init__(self, dimension: int = 256, *, salt: str = "") -> None:
        if dimension < 2:
            raise EmbeddingError(f"dimension must be >= 2, got {dimension}")
        self._dimension = dimension
        self._salt = salt

    @property
    def model_id(self) -> str:
        return f"hashing-{self._dimension}{'-' + self._salt if self._salt else ''}"

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def version(self) -> str:
        return HASHING_VERSION

    @property
    def kind_threshold(self) -> float:
        return HASHING_KIND_THRESHOLD

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        if isinstance(texts, str):
            raise EmbeddingError("embed takes a sequence of texts, not a single string")
        matrix = np.zeros((len(texts), self._dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in words(text):
                bucket, sign = _bucket(self._salt + word, self._dimension)
                matrix[row, bucket] += sign
        # `np.linalg.norm(matrix, axis=1, keepdims=True)` as numpy computes it, without its
        # wrapper's checks (a third of this method's time, once per query)
        norms = np.sqrt(np.add.reduce(matrix * matrix, axis=1, keepdims=True))
        norms[norms == 0] = 1.0  # a text with no words stays zero
        matrix /= norms
        return matrix


@functools.lru_cache(maxsize=65_536)
def _bucket(word: str, dimension: int) -> tuple[int, float]:
    """A (salted) word's bucket and sign. Why a cache: the same words come back query after
    query, and hashing one was most of the embedding's time."""
    value = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
    return value % dimension, 1.0 if value >> 63 else -1.0
