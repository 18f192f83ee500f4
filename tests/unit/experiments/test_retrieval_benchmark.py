"""The retrieval benchmark's own pieces: the stdlib corpus, the labels, the embedding stand-ins."""

import json
from pathlib import Path

import numpy as np
import pytest

from experiments.benchmarks.retrieval import (
    FUSION_GRID,
    STDLIB_LABELLED_SET,
    load_labelled_set,
    main,
    recall_at_k,
)
from experiments.benchmarks.retrieval_speed import (
    OneBatchAtATime,
    SentenceMeanEmbedder,
    write_synthetic_corpus,
)
from experiments.benchmarks.stdlib_corpus import module_markdown, write_stdlib_corpus
from retrieval.documents import read_document
from retrieval.embedding import HashingEmbedder
from retrieval.fusion import DEFAULT_FUSION


def test_recall_counts_a_query_once_when_any_alternative_is_found() -> None:
    labelled = [
        {"query": "a", "relevant": ["x.md#one", "x.md#two"], "kind": "exact"},
        {"query": "b", "relevant": ["y.md#three"], "kind": "paraphrase"},
    ]
    found = {"a": ["x.md#two", "x.md#one"], "b": ["z.md#four"]}
    recall = recall_at_k(lambda query: found[query], labelled)
    assert recall == {"exact": 1.0, "paraphrase": 0.0, "all": 0.5}


def test_stdlib_labels_are_split_in_halves_and_name_passages_that_exist(tmp_path: Path) -> None:
    labels = json.loads(STDLIB_LABELLED_SET.read_text(encoding="utf-8"))
    queries = labels["queries"]
    for kind in ("paraphrase", "exact"):
        splits = [q["split"] for q in queries if q["kind"] == kind]
        assert splits.count("tune") == splits.count("held-out") >= 20
    write_stdlib_corpus(tmp_path)
    # Under pytest some module state differs (pytest replaces threading.excepthook), so no label
    # may rest on such a member; this test would show it.
    sources = set()
    for path in tmp_path.glob("*.md"):
        document = read_document(path)
        sources |= {f"stdlib/{path.name}#{c.anchor}" for c in document.chunks}  # type: ignore[union-attr]
    assert len(sources) > 900
    missing = [r for q in queries for r in q["relevant"] if r not in sources]
    assert missing == []


def test_module_markdown_gives_each_public_function_a_section_and_escapes_hashes() -> None:
    page = module_markdown("textwrap")
    assert page.startswith("# textwrap\n")
    assert "\n## dedent\n" in page
    assert "\n## TextWrapper.wrap\n" in page
    assert "\n## _" not in page  # private names stay out
    assert all(not line.startswith("# ") for line in page.splitlines()[1:])


def test_the_library_default_is_in_the_tuning_grid_and_the_grid_has_no_repeats() -> None:
    assert DEFAULT_FUSION in FUSION_GRID
    assert len(set(FUSION_GRID)) == len(FUSION_GRID)
    assert len(load_labelled_set()) >= 50


def test_one_batch_at_a_time_gives_the_same_vectors_in_the_same_order() -> None:
    embedder = HashingEmbedder(64)
    texts = [f"text number {i} " + "word " * i for i in range(70)]
    np.testing.assert_allclose(OneBatchAtATime(embedder, 32).embed(texts), embedder.embed(texts))
    assert OneBatchAtATime(embedder).embed([]).shape == (0, 64)
    assert OneBatchAtATime(embedder).model_id == embedder.model_id


def test_sentence_mean_vectors_are_unit_means_of_sentence_vectors() -> None:
    model = HashingEmbedder(64)
    sentences = ["Leap years have 366 days.", "A mile is 1.609344 kilometres."]
    embedder = SentenceMeanEmbedder(model, sentences)
    (vector,) = embedder.embed(["Section 3: " + " ".join(sentences)])
    expected = model.embed(sentences).mean(axis=0)
    np.testing.assert_allclose(vector, expected / np.linalg.norm(expected), atol=1e-6)
    assert embedder.model_id == model.model_id  # so the real model searches the index it built


def test_synthetic_corpus_has_the_asked_number_of_sections(tmp_path: Path) -> None:
    write_synthetic_corpus(tmp_path, 45)
    chunks = [c for path in sorted(tmp_path.glob("*.md")) for c in read_document(path).chunks]  # type: ignore[union-attr]
    assert len(chunks) == 45
    assert len(list(tmp_path.glob("*.md"))) == 3


@pytest.mark.parametrize(
    "argv",
    [["indexing", "--rounds", "0"], ["latency", "--passages", "0"], ["latency", "--repeats", "0"]],
)
def test_bad_arguments_are_refused(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
