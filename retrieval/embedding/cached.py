"""An embedder that remembers the vectors of the texts it embedded last: a query is embedded once.

Why: the embedding is most of what a decision costs the engine (some 8 of 12 ms a decision on a
quiet machine, docs/benchmarks.md), and the same text comes back: a decision embeds its query to
find its kind and again when the seed or the local-search tool searches the index with it, a
user asks again, a playground's example is clicked twice. A vector is a pure function of the
model and the text, so a remembered one is the vector the model would give; it is handed out as
a copy, so that no caller can change what another reads.

Only calls of a few texts are remembered (`REMEMBERED_CALL_TEXTS`): indexing a folder embeds
thousands of passages once each, and keeping them would only push the queries out.
"""

import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import cache

import numpy as np
from numpy.typing import NDArray

from retrieval.embedding.minilm import Embedder

__all__ = ["REMEMBERED_CALL_TEXTS", "REMEMBERED_TEXTS", "CachedEmbedder", "VectorCache", "shared"]

REMEMBERED_TEXTS = 1024  # 1.5 MB of 384 float32s
REMEMBERED_CALL_TEXTS = 4  # calls of more texts (indexing) pass through, remembered by nobody


class VectorCache:
    """The vectors of the texts embedded last, least recently used out first; thread-safe."""

    def __init__(self, size: int = REMEMBERED_TEXTS) -> None:
        if size < 1:
            raise ValueError(f"a vector cache keeps at least one text, got {size}")
        self._size = size
        self._vectors: OrderedDict[str, NDArray[np.float32]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, text: str) -> NDArray[np.float32] | None:
        with self._lock:
            vector = self._vectors.get(text)
            if vector is None:
                self.misses += 1
                return None
            self._vectors.move_to_end(text)
            self.hits += 1
            return vector

    def put(self, text: str, vector: NDArray[np.float32]) -> None:
        kept = np.array(vector, dtype=np.float32)  # its own copy, read-only for every reader
        kept.flags.writeable = False
        with self._lock:
            self._vectors[text] = kept
            self._vectors.move_to_end(text)
            if len(self._vectors) > self._size:
                self._vectors.popitem(last=False)


@cache
def shared(model_id: str) -> VectorCache:  # noqa: ARG001 - the key of `cache`
    """The one cache of a model in this process: every embedder of the model shares it (the
    kinds' and the local index's are two objects over one model)."""
    return VectorCache()


class CachedEmbedder:
    """`inner`, remembering the vectors of the texts of its short calls (see the module).

    >>> from retrieval.embedding.hashing import HashingEmbedder
    >>> embedder = CachedEmbedder(HashingEmbedder(8), VectorCache())
    >>> first = embedder.embed(["leap years"])
    >>> again = embedder.embed(["leap years"])
    >>> bool((first == again).all()), embedder.cache.hits, again is first
    (True, 1, False)
    """

    def __init__(self, inner: Embedder, cache: VectorCache | None = None) -> None:
        self.inner = inner
        self.cache = cache if cache is not None else shared(inner.model_id)

    def __getattr__(self, name: str) -> object:
        # What the kind book reads of an embedder besides these (its `version`, its
        # `kind_threshold`) is the inner one's: the cache changes no vector, so no identity.
        if name == "inner":  # not set yet (a copy being built): no recursion
            raise AttributeError(name)
        return getattr(self.inner, name)

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """The vectors of `texts` (row i is texts[i]'s), the remembered ones without the model."""
        if isinstance(texts, str) or len(texts) > REMEMBERED_CALL_TEXTS:
            return self.inner.embed(texts)  # the inner one refuses a bare string, as before
        found = {text: self.cache.get(text) for text in dict.fromkeys(texts)}
        missing = [text for text, vector in found.items() if vector is None]
        if missing:
            for text, vector in zip(missing, self.inner.embed(missing), strict=True):
                self.cache.put(text, vector)
                found[text] = vector
        vectors = np.empty((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            vectors[row] = found[text]
        return vectors
