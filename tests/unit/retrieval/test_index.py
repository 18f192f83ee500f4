import os
import sqlite3
from pathlib import Path

import pytest

from retrieval.embedding import HashingEmbedder
from retrieval.errors import (
    EmbeddingError,
    EmbeddingMismatchError,
    IndexStoreError,
    QueryError,
)
from retrieval.fusion import DEFAULT_FUSION, top
from retrieval.index import LocalIndex
from retrieval.vectors import cosines, nearest


def write_notes(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "dates.md").write_text(
        "# Dates\n\n## Leap years\nA leap year is divisible by four, except most centuries.\n\n"
        "## Weekdays\nAdd the number of days modulo seven to shift the weekday.\n"
    )
    (folder / "units.txt").write_text("One mile is 1.609344 kilometres exactly.\n")
    (folder / "page.html").write_text(
        "<h1>Temperature</h1><p>Celsius equals Fahrenheit minus 32 times 5/9.</p>"
    )


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    write_notes(folder)
    return folder


@pytest.fixture
def index(tmp_path: Path, notes: Path) -> LocalIndex:
    local = LocalIndex(tmp_path / "data" / "index.sqlite3", embedder=HashingEmbedder(128))
    local.index_folder(notes)
    return local


def test_first_run_adds_every_file_and_reports_skips(tmp_path: Path, notes: Path) -> None:
    (notes / "photo.txt").write_bytes(b"\x00\x01binary")
    (notes / ".hidden.md").write_text("secret words")
    (notes / "script.py").write_text("print('not a document')")
    with LocalIndex(tmp_path / "i.sqlite3", embedder=HashingEmbedder(64)) as local:
        report = local.index_folder(notes)
        assert (report.added, report.updated, report.removed, report.unchanged) == (3, 0, 0, 0)
        assert [(s.path.name, s.reason) for s in report.skipped] == [
            ("photo.txt", "binary or not UTF-8 text")
        ]
        assert local.passage_count() == 4


@pytest.mark.parametrize("mode", ["keyword", "vector", "hybrid"])
def test_each_mode_finds_the_passage_that_shares_the_words(index: LocalIndex, mode: str) -> None:
    results = index.search("leap year divisible", 2, mode=mode)  # type: ignore[arg-type]
    assert results[0].source.endswith("notes/dates.md#leap-years")
    assert results[0].title == "Dates › Leap years"
    assert results[0].score > 0


def test_results_are_ordered_and_limited(index: LocalIndex) -> None:
    results = index.search("weekday days modulo mile kilometres", 2)
    assert len(results) == 2
    assert results[0].score >= results[1].score


def test_unchanged_files_are_not_reread_and_changes_are_picked_up(
    index: LocalIndex, notes: Path
) -> None:
    assert index.index_folder(notes).unchanged == 3
    (notes / "units.txt").write_text("One inch is 2.54 centimetres exactly.\n")
    (notes / "page.html").unlink()
    (notes / "new.md").write_text("## Fractions\nAdd numerators over a common denominator.\n")
    report = index.index_folder(notes)
    assert (report.added, report.updated, report.removed, report.unchanged) == (1, 1, 1, 1)
    assert index.search("centimetres", 1)[0].source.endswith("units.txt#top")
    assert index.search("kilometres", 1, mode="keyword") == []
    assert index.search("Celsius Fahrenheit", 3, mode="keyword") == []
    assert index.search("denominator", 1)[0].source.endswith("new.md#fractions")


def test_touched_but_identical_file_stays_unchanged(index: LocalIndex, notes: Path) -> None:
    stat = (notes / "units.txt").stat()
    os.utime(notes / "units.txt", ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    assert index.index_folder(notes).unchanged == 3


def test_a_label_gives_portable_sources(tmp_path: Path, notes: Path) -> None:
    with LocalIndex(tmp_path / "i.sqlite3", embedder=None) as local:
        local.index_folder(notes, label="my-notes")
        assert local.search("mile", 1)[0].source == "my-notes/units.txt#top"


def test_without_an_embedder_hybrid_falls_back_to_keywords(tmp_path: Path, notes: Path) -> None:
    with LocalIndex(tmp_path / "i.sqlite3", embedder=None) as local:
        local.index_folder(notes)
        assert local.search("leap year", 1)[0].source.endswith("#leap-years")
        with pytest.raises(EmbeddingError, match="embedding model"):
            local.search("leap year", 1, mode="vector")


def test_a_new_embedding_model_reembeds_instead_of_mixing(tmp_path: Path, notes: Path) -> None:
    path = tmp_path / "i.sqlite3"
    with LocalIndex(path, embedder=HashingEmbedder(64)) as local:
        local.index_folder(notes)
    with LocalIndex(path, embedder=HashingEmbedder(32)) as local:
        assert local.search("mile kilometres", 1, mode="vector")[0].source.endswith("units.txt#top")
    with sqlite3.connect(path) as conn:
        sizes = {row[0] for row in conn.execute("SELECT length(vector) FROM passages")}
        model = conn.execute("SELECT value FROM meta WHERE key = 'embedding_model'").fetchone()
    assert sizes == {32 * 4}
    assert model == ("hashing-32",)


def test_another_model_can_be_refused_leaving_the_index_intact(tmp_path: Path, notes: Path) -> None:
    path = tmp_path / "i.sqlite3"
    with LocalIndex(path, embedder=HashingEmbedder(64)) as local:
        local.index_folder(notes)
    with pytest.raises(EmbeddingMismatchError, match="hashing-64"):
        LocalIndex(path, embedder=HashingEmbedder(64, salt="other"), on_model_change="error")
    with LocalIndex(path, embedder=HashingEmbedder(64)) as local:
        assert local.search("mile", 1, mode="vector")[0].source.endswith("units.txt#top")


def test_a_keyword_only_run_keeps_the_vectors(tmp_path: Path, notes: Path) -> None:
    path = tmp_path / "i.sqlite3"
    with LocalIndex(path, embedder=HashingEmbedder(64)) as local:
        local.index_folder(notes)
    with LocalIndex(path, embedder=None) as local:
        (notes / "extra.md").write_text("## Extra\nNothing about units.\n")
        local.index_folder(notes)
    with LocalIndex(path, embedder=HashingEmbedder(64), on_model_change="error") as local:
        assert local.search("units", 1, mode="vector")[0].source.endswith("extra.md#extra")


def test_foreign_or_corrupt_database_is_refused(tmp_path: Path) -> None:
    foreign = tmp_path / "foreign.sqlite3"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE customers (id INTEGER)")
    with pytest.raises(IndexStoreError, match="not a ThinkPath index"):
        LocalIndex(foreign, embedder=None)
    garbage = tmp_path / "garbage.sqlite3"
    garbage.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(IndexStoreError, match=r"garbage\.sqlite3"):
        LocalIndex(garbage, embedder=None)


def test_indexing_something_that_is_not_a_folder_is_refused(index: LocalIndex, notes: Path) -> None:
    with pytest.raises(IndexStoreError, match="not a folder"):
        index.index_folder(notes / "units.txt")


@pytest.mark.parametrize("query", ["", "   ", "x" * 5000])
def test_bad_queries_raise_query_error(index: LocalIndex, query: str) -> None:
    with pytest.raises(QueryError):
        index.search(query)


@pytest.mark.parametrize("query", ['"', "NEAR(", "a:b", "*", "???", "AND OR NOT"])
def test_fts_syntax_in_queries_never_raises(index: LocalIndex, query: str) -> None:
    assert isinstance(index.search(query, 3), list)


def test_bad_mode_is_refused(index: LocalIndex) -> None:
    with pytest.raises(ValueError, match="mode"):
        index.search("leap", 1, mode="fuzzy")  # type: ignore[arg-type]


def test_a_file_grown_too_large_is_dropped_without_being_read(
    index: LocalIndex, notes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("retrieval.index.MAX_FILE_BYTES", 100)
    (notes / "units.txt").write_text("One mile is 1.609344 kilometres. " * 10)
    report = index.index_folder(notes)
    assert [(s.path.name, s.reason) for s in report.skipped] == [
        ("units.txt", "too large (330 bytes > 100)")
    ]
    assert report.unchanged == 2
    assert index.search("kilometres", 3, mode="keyword") == []


@pytest.mark.parametrize(("progress", "drawn"), [(True, True), (False, False), (None, False)])
def test_progress_bar_is_drawn_on_request_and_never_for_small_jobs_off_a_terminal(
    tmp_path: Path,
    notes: Path,
    capsys: pytest.CaptureFixture[str],
    progress: bool | None,
    drawn: bool,
) -> None:
    with LocalIndex(
        tmp_path / "p.sqlite3", embedder=HashingEmbedder(32), progress=progress
    ) as local:
        local.index_folder(notes)
        assert local.passage_count() == 4
    err = capsys.readouterr().err
    assert ("embedding" in err and "4/4" in err) is drawn


def test_passages_are_embedded_in_several_batches_when_there_are_many(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("retrieval.index.EMBED_BATCH", 3)
    folder = tmp_path / "many"
    folder.mkdir()
    for number in range(4):
        (folder / f"note{number}.md").write_text(f"# Note {number}\n\nword{number} text here\n")
    embedder = HashingEmbedder(32)
    calls: list[int] = []
    original = embedder.embed

    def counted(texts: list[str]) -> object:
        calls.append(len(texts))
        return original(texts)

    monkeypatch.setattr(embedder, "embed", counted)
    with LocalIndex(tmp_path / "b.sqlite3", embedder=embedder) as local:
        local.index_folder(folder)
        assert calls == [3, 1]
        assert local.search("word2", 1, mode="vector")[0].source.endswith("note2.md#note-2")


def test_hybrid_fuses_keyword_and_vector_candidates_computed_side_by_side(
    index: LocalIndex,
) -> None:
    query = "weekday shift modulo seven"
    keyword = index._keyword_scores(query, 50)
    ids, matrix = index._vectors()
    vector = nearest(ids, cosines(matrix, HashingEmbedder(128).embed([query])[0]), 50, also=keyword)
    expected = [passage_id for passage_id, _ in top(DEFAULT_FUSION.combine(keyword, vector), 3)]
    found = index.search(query, 3)
    by_source = dict(index._conn.execute("SELECT source, id FROM passages").fetchall())
    assert [by_source[p.source] for p in found] == expected
    assert found[0].source.endswith("dates.md#weekdays")


def test_a_failure_on_either_side_of_a_hybrid_search_is_raised_and_the_index_still_works(
    index: LocalIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken_keyword(text: str, pool: int) -> dict[int, float]:
        raise IndexStoreError("disk gone")

    with monkeypatch.context() as patch:
        patch.setattr(index, "_keyword_scores", broken_keyword)
        with pytest.raises(IndexStoreError, match="disk gone"):
            index.search("leap year")
    with monkeypatch.context() as patch:
        patch.setattr(index._embedder, "embed", lambda texts: 1 / 0)
        with pytest.raises(ZeroDivisionError):
            index.search("leap year")
    assert index.search("leap year", 1)[0].source.endswith("dates.md#leap-years")
    index.close()


def test_hybrid_in_turn_finds_what_hybrid_with_a_keyword_thread_finds(
    tmp_path: Path, notes: Path
) -> None:
    path = tmp_path / "same.sqlite3"
    with LocalIndex(path, embedder=HashingEmbedder(128)) as threaded:
        threaded.index_folder(notes)
        with LocalIndex(path, embedder=HashingEmbedder(128), keyword_thread=False) as in_turn:
            for query in ("leap year", "miles to kilometres", "fahrenheit", "weekday modulo"):
                assert in_turn.search(query, 4) == threaded.search(query, 4)
