"""The engine's one constructor, end to end: corpus + user folder, offline, under data_dir only."""

import socket
from pathlib import Path

import pytest

from retrieval.embedding import HashingEmbedder
from retrieval.errors import IndexStoreError
from retrieval.factory import build_default_searcher, build_local_index
from retrieval.gather import gather


def closed_port() -> int:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = int(probe.getsockname()[1])
    probe.close()
    return port


@pytest.fixture
def user_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "my-notes"
    folder.mkdir()
    (folder / "project.md").write_text("## Zanzibar deadline\nThe Zanzibar report is due Friday.\n")
    (folder / "image.txt").write_bytes(b"\x00\xff binary")
    return folder


def test_default_searcher_answers_from_the_corpus_and_the_user_folder(
    tmp_path: Path, user_folder: Path
) -> None:
    data_dir = tmp_path / "home"
    searcher = build_default_searcher(data_dir, web=False, index_folders=[user_folder])
    leap = searcher.search("is 1900 a leap year", 3)
    assert leap[0].source == "thinkpath-corpus/dates/calendar-and-leap-years.md#the-leap-year-rule"
    assert searcher.search("Zanzibar report", 1)[0].source.endswith("project.md#zanzibar-deadline")
    assert sorted(p.name for p in (data_dir / "retrieval").iterdir() if "-" not in p.name) == [
        "index.sqlite3"
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home", "my-notes"]


def test_web_on_but_offline_still_answers_locally(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DDGS_PROXY", f"http://127.0.0.1:{closed_port()}")
    searcher = build_default_searcher(
        tmp_path, web=True, embedder=HashingEmbedder(64), use_default_embedder=False
    )
    result = gather(searcher, "How many days are in a leap year?", limit=3)
    assert result.passages
    assert all(p.source.startswith("thinkpath-corpus/") for p in result.passages)
    assert (tmp_path / "retrieval" / "web-cache.sqlite3").exists()


def test_reports_list_skipped_files_and_reindexing_is_incremental(
    tmp_path: Path, user_folder: Path
) -> None:
    embedder = HashingEmbedder(64)
    index, reports = build_local_index(tmp_path, index_folders=[user_folder], embedder=embedder)
    index.close()
    assert reports[0].added >= 30
    assert [s.path.name for s in reports[1].skipped] == ["image.txt"]
    index, again = build_local_index(tmp_path, index_folders=[user_folder], embedder=embedder)
    index.close()
    assert [r.added + r.updated for r in again] == [0, 0]


def test_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(IndexStoreError, match="not a folder"):
        build_default_searcher(
            tmp_path, web=False, index_folders=[tmp_path / "absent"], use_default_embedder=False
        )
