"""Build the searcher the engine uses: the embedded corpus and the user's folders, plus the web.

This is the one place in `retrieval/` that decides which backends run; the engine's composition
root calls `build_default_searcher` with its data directory and settings, and nothing here reads
the environment. Everything written goes under `data_dir/retrieval/`.
"""

import logging
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from retrieval.cache import CachedSearcher
from retrieval.combine import MergedSearcher
from retrieval.embedding import Embedder, load_default_embedder
from retrieval.index import IndexReport, LocalIndex
from retrieval.port import Searcher
from retrieval.web import WebSearcher

logger = logging.getLogger(__name__)

CORPUS_LABEL = "thinkpath-corpus"
INDEX_FILE = "index.sqlite3"
WEB_CACHE_FILE = "web-cache.sqlite3"


def corpus_folder() -> Path:
    """The embedded default corpus: short Markdown notes shipped inside the package."""
    return Path(str(resources.files("retrieval").joinpath("corpus")))


def build_local_index(
    data_dir: Path,
    *,
    index_folders: Sequence[Path] = (),
    embedder: Embedder | None,
    include_corpus: bool = True,
) -> tuple[LocalIndex, list[IndexReport]]:
    """Open the local index under `data_dir` and bring it up to date with the corpus and folders.

    Re-indexing is incremental: unchanged files cost a `stat`, so this is cheap after the first
    run. Files that cannot be read are skipped and listed in the reports (and logged).
    """
    index = LocalIndex(data_dir / "retrieval" / INDEX_FILE, embedder=embedder)
    reports: list[IndexReport] = []
    try:
        if include_corpus:
            reports.append(index.index_folder(corpus_folder(), label=CORPUS_LABEL))
        for folder in index_folders:
            reports.append(index.index_folder(folder))
    except BaseException:
        index.close()
        raise
    for report in reports:
        for skipped in report.skipped:
            logger.info("not indexed: %s (%s)", skipped.path, skipped.reason)
    return index, reports


def build_default_searcher(
    data_dir: Path,
    *,
    web: bool,
    index_folders: Sequence[Path] = (),
    embedder: Embedder | None = None,
    use_default_embedder: bool = True,
    intra_op_threads: int = 1,
    web_timeout_s: int = 5,
    web_cache_ttl_s: float = 7 * 24 * 3600.0,
) -> Searcher:
    """The engine's searcher: the local hybrid index, merged with cached web search if `web`.

    With no embedding model installed (and none given) the index searches keywords only. With
    `web`, an unreachable network costs one failed request, then the web is skipped for a minute
    while the local index keeps answering.
    """
    if embedder is None and use_default_embedder:
        embedder = load_default_embedder(intra_op_threads=intra_op_threads)
        if embedder is None:
            logger.info("no embedding model installed: the local index searches keywords only")
    local, _ = build_local_index(data_dir, index_folders=index_folders, embedder=embedder)
    if not web:
        return local
    web_searcher = CachedSearcher(
        WebSearcher(timeout_s=web_timeout_s),
        data_dir / "retrieval" / WEB_CACHE_FILE,
        ttl_s=web_cache_ttl_s,
        keep_s=max(web_cache_ttl_s, 30 * 24 * 3600.0),
    )
    return MergedSearcher([local, web_searcher])
