"""Web search through `ddgs` (DuckDuckGo and friends): a thin adapter onto the `Searcher` port.

It translates results into passages and every ddgs failure into `SearchUnavailableError`. After a
network failure it stays quiet for `cooldown_s` and refuses at once, so that an offline machine
pays for one failed request, not one per query.
"""

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from retrieval.errors import SearchUnavailableError
from retrieval.port import Passage
from retrieval.query import validate_limit, validate_query

NO_RESULTS = "No results found."


class TextSearchClient(Protocol):
    """The part of `ddgs.DDGS` this adapter uses (a fake in the tests)."""

    def text(self, query: str, **kwargs: Any) -> list[dict[str, Any]]: ...


def ddgs_client(*, timeout_s: int, proxy: str | None) -> TextSearchClient:
    """A real `ddgs.DDGS` client; imported lazily so that importing this module costs nothing."""
    from ddgs import DDGS  # noqa: PLC0415 (ddgs pulls in an HTTP stack; import on first use)

    client: TextSearchClient = DDGS(proxy=proxy, timeout=timeout_s)
    return client


class WebSearcher:
    """Text search on the web; results become passages whose source is the result's URL."""

    def __init__(
        self,
        *,
        timeout_s: int = 5,
        proxy: str | None = None,
        backend: str = "duckduckgo",
        region: str = "us-en",
        cooldown_s: float = 60.0,
        client: TextSearchClient | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if timeout_s < 1:
            raise ValueError(f"timeout_s must be >= 1 (ddgs counts whole seconds), got {timeout_s}")
        if cooldown_s < 0:
            raise ValueError(f"cooldown_s must be >= 0, got {cooldown_s}")
        self._client = client or ddgs_client(timeout_s=timeout_s, proxy=proxy)
        self._backend = backend
        self._region = region
        self._cooldown_s = cooldown_s
        self._clock = clock
        self._lock = threading.Lock()
        self._failed_at: float | None = None
        self._failure = ""

    def search(self, query: str, limit: int = 5) -> list[Passage]:
        text = validate_query(query)
        validate_limit(limit)
        with self._lock:
            if self._failed_at is not None:
                waited = self._clock() - self._failed_at
                if waited < self._cooldown_s:
                    raise SearchUnavailableError(
                        f"web search is off for {self._cooldown_s - waited:.0f} s more after a "
                        f"failure: {self._failure}"
                    )
        try:
            results = self._client.text(
                text,
                max_results=limit,
                backend=self._backend,
                region=self._region,
                safesearch="moderate",
            )
        # ddgs raises DDGSException, but its engines may also leak parser or client errors:
        # at this boundary every one of them means "the web cannot answer now".
        except Exception as error:
            if str(error) == NO_RESULTS:
                return []
            with self._lock:
                self._failed_at = self._clock()
                self._failure = f"{type(error).__name__}: {error}"
            raise SearchUnavailableError(f"web search failed: {self._failure}") from error
        with self._lock:
            self._failed_at = None
        return to_passages(results, limit)


def to_passages(results: Sequence[Mapping[str, Any]], limit: int) -> list[Passage]:
    """Turn ddgs result dicts (`title`, `href`, `body`) into passages, best first.

    Results without a URL or a text are dropped: a passage that cannot be cited is no use.

    >>> to_passages([{"title": "T", "href": "https://a.org", "body": "B"}, {"title": "x"}], 5)
    [Passage(text='B', source='https://a.org', title='T', score=1.0)]
    """
    passages: list[Passage] = []
    for result in results:
        source = str(result.get("href") or result.get("url") or "").strip()
        text = str(result.get("body") or "").strip()
        if not source or not text:
            continue
        rank = len(passages) + 1
        passages.append(Passage(text, source, str(result.get("title") or ""), 1.0 / rank))
    return passages[:limit]
