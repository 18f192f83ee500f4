import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from retrieval.errors import QueryError, SearchUnavailableError
from retrieval.web import WebSearcher


class FakeClient:
    """Stands in for ddgs.DDGS: returns scripted results or raises, recording the calls."""

    def __init__(self, results: list[dict[str, Any]] | None = None, error: Exception | None = None):
        self.results = results or []
        self.error = error
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def text(self, query: str, **kwargs: Any) -> list[dict[str, Any]]:
        self.calls.append((query, kwargs))
        if self.error is not None:
            raise self.error
        return self.results


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_results_become_cited_passages_in_rank_order() -> None:
    client = FakeClient(
        [
            {"title": "Leap year", "href": "https://en.example.org/Leap", "body": "Every 4 years."},
            {"title": "No link", "body": "dropped"},
            {"title": "Second", "href": "https://b.example.org", "body": "More."},
        ]
    )
    results = WebSearcher(client=client).search("  leap year  ", 2)
    assert [(p.source, p.title, p.text) for p in results] == [
        ("https://en.example.org/Leap", "Leap year", "Every 4 years."),
        ("https://b.example.org", "Second", "More."),
    ]
    assert results[0].score > results[1].score
    query, kwargs = client.calls[0]
    assert query == "leap year"
    assert kwargs["max_results"] == 2


def test_no_results_is_an_empty_answer_not_a_failure() -> None:
    from ddgs.exceptions import DDGSException

    searcher = WebSearcher(client=FakeClient(error=DDGSException("No results found.")))
    assert searcher.search("zzzz") == []


def test_failure_is_translated_then_the_web_rests_for_the_cooldown() -> None:
    from ddgs.exceptions import DDGSException

    client = FakeClient(error=DDGSException("DNSError: no records found"))
    clock = Clock()
    searcher = WebSearcher(client=client, cooldown_s=60, clock=clock)
    with pytest.raises(SearchUnavailableError, match="DNSError"):
        searcher.search("q")
    clock.now += 30
    with pytest.raises(SearchUnavailableError, match="off for 30 s"):
        searcher.search("q")
    assert len(client.calls) == 1
    clock.now += 31
    client.error = None
    client.results = [{"title": "t", "href": "https://x.org", "body": "b"}]
    assert len(searcher.search("q")) == 1
    assert len(client.calls) == 2


def test_bad_queries_and_settings_are_refused_before_any_request() -> None:
    client = FakeClient()
    searcher = WebSearcher(client=client)
    with pytest.raises(QueryError):
        searcher.search("")
    assert client.calls == []
    with pytest.raises(ValueError, match="timeout_s"):
        WebSearcher(client=client, timeout_s=0)


@pytest.fixture
def refusing_proxy() -> Iterator[tuple[int, list[bytes]]]:
    """A local HTTP proxy that records each request line and answers 502: no internet needed."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    seen: list[bytes] = []

    def serve() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            with connection:
                seen.append(connection.recv(4096).split(b"\r\n")[0])
                connection.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1], seen
    server.close()
    thread.join(timeout=5)


def test_real_ddgs_request_fails_cleanly_at_the_http_boundary(
    refusing_proxy: tuple[int, list[bytes]],
) -> None:
    port, seen = refusing_proxy
    searcher = WebSearcher(proxy=f"http://127.0.0.1:{port}", timeout_s=5)
    with pytest.raises(SearchUnavailableError, match="502"):
        searcher.search("leap year rule", 3)
    assert seen
    assert all(line.startswith(b"CONNECT ") and b"duckduckgo" in line for line in seen)


def test_unreachable_network_is_a_search_unavailable_error() -> None:
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there now: the connection is refused at once
    with pytest.raises(SearchUnavailableError):
        WebSearcher(proxy=f"http://127.0.0.1:{port}", timeout_s=5).search("leap year")
