"""The cached embedder: a text is embedded by the model once, and every caller gets the same
vector as its own copy."""

import uuid
from collections.abc import Sequence

import numpy as np
import pytest
from numpy.typing import NDArray

from retrieval.embedding import CachedEmbedder, HashingEmbedder, VectorCache
from retrieval.embedding.cached import REMEMBERED_CALL_TEXTS, shared


class CountingEmbedder:
    """The hashing embedder, counting the texts it is asked to embed."""

    def __init__(self, model_id: str = "counting") -> None:
        self._inner = HashingEmbedder(16)
        self._model_id = model_id
        self.embedded: list[str] = []

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dimension(self) -> int:
        return self._inner.dimension

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        self.embedded.extend(texts)
        return self._inner.embed(texts)


def test_a_text_asked_again_is_not_embedded_again() -> None:
    model = CountingEmbedder()
    embedder = CachedEmbedder(model, VectorCache())
    first = embedder.embed(["How many minutes are in 3.5 hours?"])
    again = embedder.embed(["How many minutes are in 3.5 hours?", "What is 2 + 2?"])
    assert model.embedded == ["How many minutes are in 3.5 hours?", "What is 2 + 2?"]
    np.testing.assert_array_equal(again[0], first[0])
    np.testing.assert_array_equal(again, model._inner.embed([*model.embedded]))


def test_each_caller_gets_its_own_copy() -> None:
    embedder = CachedEmbedder(CountingEmbedder(), VectorCache())
    first = embedder.embed(["leap years"])
    first[0] = 0.0  # the caller's own array
    assert embedder.embed(["leap years"]).any()


def test_repeats_in_one_call_are_embedded_once_and_keep_their_rows() -> None:
    model = CountingEmbedder()
    vectors = CachedEmbedder(model, VectorCache()).embed(["a cat", "a dog", "a cat"])
    assert model.embedded == ["a cat", "a dog"]
    np.testing.assert_array_equal(vectors[0], vectors[2])
    assert not np.array_equal(vectors[0], vectors[1])


def test_a_long_call_passes_through_and_is_not_remembered() -> None:
    model = CountingEmbedder()
    embedder = CachedEmbedder(model, VectorCache())
    passages = [f"passage {n}" for n in range(REMEMBERED_CALL_TEXTS + 1)]
    embedder.embed(passages)
    embedder.embed(passages[:1])
    assert model.embedded == [*passages, passages[0]]


def test_the_least_recently_used_text_goes_first() -> None:
    model = CountingEmbedder()
    embedder = CachedEmbedder(model, VectorCache(size=2))
    for text in ["one", "two", "one", "three", "one", "two"]:
        embedder.embed([text])
    assert model.embedded == ["one", "two", "three", "two"]  # "two" was the oldest at "three"


def test_embedders_of_one_model_share_its_cache() -> None:
    model_id = f"shared-{uuid.uuid4()}"  # a cache of its own: the process keeps one per model
    kinds, index = CountingEmbedder(model_id), CountingEmbedder(model_id)
    CachedEmbedder(kinds).embed(["What is the capital of Australia?"])
    CachedEmbedder(index).embed(["What is the capital of Australia?"])
    assert (kinds.embedded, index.embedded) == (["What is the capital of Australia?"], [])
    assert shared(model_id) is not shared(f"{model_id}-other")


def test_a_bare_string_is_refused_as_by_the_model() -> None:
    with pytest.raises(Exception, match="sequence"):
        CachedEmbedder(HashingEmbedder(8), VectorCache()).embed("one text")
    with pytest.raises(ValueError, match="at least one"):
        VectorCache(size=0)


def test_the_cache_keeps_the_inner_embedders_identity_and_threshold() -> None:
    """The kind book records an embedder's version and takes its threshold: a cache around it
    must hand both on, or a replica's kinds would be matched at another embedder's threshold."""
    inner = HashingEmbedder(8)
    wrapped = CachedEmbedder(inner, VectorCache())
    assert wrapped.version == inner.version
    assert wrapped.kind_threshold == inner.kind_threshold
    assert getattr(wrapped, "no_such_attribute", None) is None
