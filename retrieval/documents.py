"""Read a user's document (text, Markdown, HTML) and cut it into passages with stable anchors.

A file that cannot be used (binary, another encoding, too large, unreadable) is never an error for
the whole folder: `read_document` returns a `SkippedFile` that says why, and indexing goes on.
"""

import re
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

TEXT_SUFFIXES = frozenset({".txt", ".text", ".md", ".markdown", ".rst"})
HTML_SUFFIXES = frozenset({".html", ".htm", ".xhtml"})
SUPPORTED_SUFFIXES = TEXT_SUFFIXES | HTML_SUFFIXES
MAX_FILE_BYTES = 5_000_000
# MiniLM reads at most 256 word pieces (~190 words); longer passages would be embedded cut short.
MAX_PASSAGE_WORDS = 150
# More replacement characters than this means the bytes were not UTF-8 text to begin with.
MAX_UNDECODABLE_SHARE = 0.01

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_TOP_HEADING = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)
_SLUG_DROP = re.compile(r"[^\w\s-]")
_SLUG_SPACE = re.compile(r"[\s_-]+")


@dataclass(frozen=True)
class Chunk:
    """A passage of one document: `anchor` is unique within the document and stable across runs."""

    anchor: str
    title: str
    text: str


@dataclass(frozen=True)
class Document:
    path: Path
    title: str
    chunks: tuple[Chunk, ...]


@dataclass(frozen=True)
class SkippedFile:
    path: Path
    reason: str


def slugify(heading: str) -> str:
    """Turn a heading into a URL fragment.

    >>> slugify("Dates: counting days (inclusive?)")
    'dates-counting-days-inclusive'
    """
    slug = _SLUG_SPACE.sub("-", _SLUG_DROP.sub("", heading.lower())).strip("-")
    return slug or "section"


class _HTMLText(HTMLParser):
    """Collect the visible text of an HTML page, with headings kept as Markdown headings."""

    _BLOCKS = frozenset({"p", "div", "li", "br", "tr", "section", "article", "pre", "blockquote"})
    _HIDDEN = frozenset({"script", "style", "template", "noscript", "head"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title = ""
        self._hidden_depth = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:  # noqa: ARG002
        if tag in self._HIDDEN:
            self._hidden_depth += 1
        elif tag == "title":
            self._in_title = True
        elif re.fullmatch(r"h[1-6]", tag):
            self.parts.append("\n\n" + "#" * int(tag[1]) + " ")
        elif tag in self._BLOCKS:
            self.parts.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._HIDDEN:
            self._hidden_depth = max(0, self._hidden_depth - 1)
        elif tag == "title":
            self._in_title = False
        elif re.fullmatch(r"h[1-6]", tag) or tag in self._BLOCKS:
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data.strip()
        elif not self._hidden_depth:
            self.parts.append(data)


def html_to_markdown(html: str) -> tuple[str, str]:
    """Return (title, text) of an HTML page: visible text only, headings as `#` lines.

    >>> html_to_markdown("<title>T</title><h2>Rule</h2><p>a &amp; b</p><script>x()</script>")
    ('T', '## Rule\\n\\na & b')
    """
    parser = _HTMLText()
    parser.feed(html)
    parser.close()
    lines = [
        re.sub(r"[ \t\r\f\v]+", " ", line).strip() for line in "".join(parser.parts).split("\n")
    ]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    return parser.title, text


def _decode(data: bytes) -> str | None:
    """UTF-8 text, or None when the bytes are binary or in another encoding."""
    if b"\x00" in data[:8192]:
        return None
    text = data.decode("utf-8-sig", errors="replace")
    if text.count("\ufffd") > MAX_UNDECODABLE_SHARE * max(len(text), 1):
        return None
    return text


def document_files(root: Path) -> Iterator[Path]:
    """Files with a supported suffix under `root`, skipping hidden files and folders."""
    for path in root.rglob("*"):
        relative = path.relative_to(root).parts
        if any(part.startswith(".") for part in relative):
            continue
        if path.suffix.lower() in SUPPORTED_SUFFIXES and path.is_file():
            yield path


def read_document(path: Path) -> Document | SkippedFile:
    """Read and chunk one file, or say why it was skipped."""
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        return SkippedFile(path, f"unsupported file type {suffix or '(none)'}")
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            return SkippedFile(path, f"too large ({size} bytes > {MAX_FILE_BYTES})")
        data = path.read_bytes()
    except OSError as error:
        return SkippedFile(path, f"unreadable: {error.strerror or error}")
    text = _decode(data)
    if text is None:
        return SkippedFile(path, "binary or not UTF-8 text")
    title = ""
    if suffix in HTML_SUFFIXES:
        title, text = html_to_markdown(text)
    chunks = chunk_markdown(text)
    if not chunks:
        return SkippedFile(path, "no text")
    top_heading = _TOP_HEADING.search(text)
    first_heading = next((c.title for c in chunks if c.title), "")
    title = title or (top_heading.group(1).strip() if top_heading else first_heading)
    return Document(path, title or path.stem, tuple(chunks))


def _sections(text: str) -> list[tuple[str, list[str]]]:
    """Split Markdown into (heading, paragraphs) sections; text before any heading has ''."""
    sections: list[tuple[str, list[str]]] = [("", [])]
    paragraph: list[str] = []

    def close_paragraph() -> None:
        if paragraph:
            sections[-1][1].append(" ".join(paragraph))
            paragraph.clear()

    for raw in text.replace("\r\n", "\n").split("\n"):
        line = raw.strip()
        heading = _HEADING.match(line)
        if heading:
            close_paragraph()
            sections.append((heading.group(2), []))
        elif not line:
            close_paragraph()
        else:
            paragraph.append(line)
    close_paragraph()
    return [(heading, paragraphs) for heading, paragraphs in sections if paragraphs]


def _split_words(paragraph: str) -> list[str]:
    words = paragraph.split()
    return [
        " ".join(words[start : start + MAX_PASSAGE_WORDS])
        for start in range(0, len(words), MAX_PASSAGE_WORDS)
    ]


def chunk_markdown(text: str) -> list[Chunk]:
    """Cut Markdown into passages of whole paragraphs, at most ~150 words, one section each.

    >>> [c.anchor for c in chunk_markdown("# Title\\nIntro.\\n\\n## Rule one\\nDo it.")]
    ['title', 'rule-one']
    """
    chunks: list[Chunk] = []
    seen: dict[str, int] = {}
    for heading, paragraphs in _sections(text):
        pieces: list[str] = []
        current: list[str] = []
        for paragraph in (part for p in paragraphs for part in _split_words(p)):
            if current and len(" ".join([*current, paragraph]).split()) > MAX_PASSAGE_WORDS:
                pieces.append("\n\n".join(current))
                current = []
            current.append(paragraph)
        if current:
            pieces.append("\n\n".join(current))
        base = slugify(heading) if heading else "top"
        for piece in pieces:
            seen[base] = seen.get(base, 0) + 1
            anchor = base if seen[base] == 1 else f"{base}-{seen[base]}"
            chunks.append(Chunk(anchor=anchor, title=heading, text=piece))
    return chunks
