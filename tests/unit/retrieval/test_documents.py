from pathlib import Path

from retrieval.documents import (
    MAX_FILE_BYTES,
    MAX_PASSAGE_WORDS,
    Document,
    SkippedFile,
    chunk_markdown,
    read_document,
)


def test_markdown_sections_become_passages_with_heading_anchors(tmp_path: Path) -> None:
    path = tmp_path / "dates.md"
    path.write_text("# Dates\n\n## Leap years\nDivisible by 4.\n\n## Weekdays\nMod 7.\n")
    document = read_document(path)
    assert isinstance(document, Document)
    assert document.title == "Dates"
    assert [(c.anchor, c.text) for c in document.chunks] == [
        ("leap-years", "Divisible by 4."),
        ("weekdays", "Mod 7."),
    ]


def test_repeated_headings_get_distinct_anchors() -> None:
    chunks = chunk_markdown("## Example\none\n\n## Example\ntwo\n\nloose")
    assert [c.anchor for c in chunks] == ["example", "example-2"]


def test_text_before_any_heading_is_kept() -> None:
    assert [c.anchor for c in chunk_markdown("plain words\n\n## Later\nmore")] == ["top", "later"]


def test_long_sections_are_split_under_the_word_limit() -> None:
    chunks = chunk_markdown("## Long\n" + "word " * (3 * MAX_PASSAGE_WORDS + 7))
    assert len(chunks) == 4
    assert all(len(c.text.split()) <= MAX_PASSAGE_WORDS for c in chunks)
    assert [c.anchor for c in chunks] == ["long", "long-2", "long-3", "long-4"]


def test_html_keeps_visible_text_and_headings_only(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_text(
        "<html><head><title>Units</title><style>p{}</style></head><body>"
        "<h2>Length</h2><p>1 inch = 2.54 cm</p><script>steal()</script></body></html>"
    )
    document = read_document(path)
    assert isinstance(document, Document)
    assert document.title == "Units"
    assert [(c.anchor, c.text) for c in document.chunks] == [("length", "1 inch = 2.54 cm")]


def test_binary_file_is_skipped_with_a_reason(tmp_path: Path) -> None:
    path = tmp_path / "blob.txt"
    path.write_bytes(b"\x89PNG\r\n\x00\x00binary")
    assert read_document(path) == SkippedFile(path, "binary or not UTF-8 text")


def test_text_in_another_encoding_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "latin.txt"
    path.write_bytes("café crème brûlée à la française ".encode("utf-16-le")[1:] * 5)
    skipped = read_document(path)
    assert isinstance(skipped, SkippedFile)


def test_unsupported_empty_unreadable_and_huge_files_are_skipped(tmp_path: Path) -> None:
    (tmp_path / "a.pdf").write_bytes(b"%PDF")
    (tmp_path / "empty.md").write_text("  \n\n")
    (tmp_path / "folder.md").mkdir()
    huge = tmp_path / "huge.txt"
    with huge.open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)
    reasons = {
        name: getattr(read_document(tmp_path / name), "reason", None)
        for name in ("a.pdf", "empty.md", "folder.md", "huge.txt")
    }
    assert reasons["a.pdf"] == "unsupported file type .pdf"
    assert reasons["empty.md"] == "no text"
    assert str(reasons["folder.md"]).startswith("unreadable")
    assert str(reasons["huge.txt"]).startswith("too large")
