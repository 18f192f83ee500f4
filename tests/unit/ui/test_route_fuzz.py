"""Malformed requests on every route of the service (REST, `/v1`, Gradio's): none gets a 5xx.

The routes are read from the app itself (its routers and mounts, Gradio's included), so a route
added later, by us or by a Gradio upgrade, is fuzzed without editing this file. Each gets bodies
that are not UTF-8 under every content type, JSON of the wrong shape, Gradio's calling
convention bent (no inputs, a function index of -1 or 2**64, an empty session), and odd query
strings, all with the token: whatever is wrong must be answered 4xx.

Requests are driven over ASGI directly and stop at the status line, because several Gradio
routes answer with a stream that never ends (`/gradio_api/heartbeat/...`).
"""

import re
from collections.abc import Iterator
from typing import Any, NamedTuple
from urllib.parse import unquote

import anyio
import pytest
from fastapi.testclient import TestClient
from starlette.routing import BaseRoute, Mount, WebSocketRoute
from starlette.types import ASGIApp, Message

from tests.unit.ui.conftest import scripted_engine
from ui.service.app import create_app
from ui.service.auth import LOGIN_PATH, LOGOUT_PATH, Access

TOKEN = "route-fuzz-token-0123456789"
HEADERS = [(b"host", b"localhost"), (b"authorization", f"Bearer {TOKEN}".encode())]
NOT_UTF8 = b"\xff\xfe\x80 not utf-8 \xc3\x28"
CONTENT_TYPES = [
    None,
    "text/plain",
    "application/x-www-form-urlencoded",
    "application/json",
    "application/octet-stream",
]
# Gradio's calling convention (`data`, `fn_index`, `session_hash`), bent every way the playground
# was seen to answer with a 500, and shapes no route expects.
JSON_BODIES = [
    b"",
    b"{}",
    b"[]",
    b'"text"',
    b"null",
    b'{"data": []}',
    b'{"data": [""]}',
    b'{"data": "text"}',
    b'{"data": ["", null], "fn_index": -1, "session_hash": "fuzz"}',
    b'{"data": ["", null], "fn_index": 18446744073709551616, "session_hash": "fuzz"}',
    b'{"data": ["", null], "fn_index": 9999, "session_hash": "fuzz"}',
    b'{"data": ["", null], "fn_index": "0", "session_hash": "fuzz"}',
    b'{"data": ["", null], "fn_index": 0, "session_hash": ""}',
    b'{"data": [], "fn_index": 0, "session_hash": "fuzz"}',
    b'{"data": ["What is 2+2?", "", "not-a-kind"]}',
    b'{"text": 1, "unknown": 2}',
]
QUERIES = [b"", b"session_hash=", b"session_hash=%FF", b"page=%FF&x=1&x=2", b"deep_link=%FF"]
PARAMETER = re.compile(r"\{(\w+)(?::\w+)?\}")
# Real endpoints (one with a dropdown, whose choices Gradio checks) and one that is not.
VALUES = {"api_name": ["show", "ask", "no-such-endpoint"]}
TIMEOUT_S = 30.0  # an answer's first line; a route that takes this long fails as a hang


def every_route(routes: list[BaseRoute], prefix: str = "") -> Iterator[tuple[str, str]]:
    """(method, path template) of each HTTP route, through mounts and included routers."""
    for route in routes:
        if isinstance(route, Mount):
            yield from every_route(route.routes, prefix + route.path)
        elif isinstance(route, WebSocketRoute):
            continue
        elif hasattr(route, "effective_route_contexts"):  # FastAPI's included router
            for context in route.effective_route_contexts():
                methods = getattr(context.original_route, "methods", None) or ()
                yield from ((method, prefix + context.path) for method in methods)
        else:
            methods = getattr(route, "methods", None) or ()
            yield from ((method, prefix + route.path) for method in methods)  # type: ignore[attr-defined]


def concrete_paths(template: str) -> list[str]:
    """The template with each parameter filled: known values, a plain word, a bad escape."""
    paths = [template]
    while any(PARAMETER.search(path) for path in paths):
        filled = []
        for path in paths:
            match = PARAMETER.search(path)
            if match is None:
                filled.append(path)
                continue
            for value in VALUES.get(match.group(1), ["fuzz", "%FF"]):
                filled.append(path[: match.start()] + value + path[match.end() :])
        paths = filled
    return paths


class Probe(NamedTuple):
    """One malformed request."""

    method: str
    path: str
    query: bytes = b""
    body: bytes = b""
    content_type: str | None = None

    def __str__(self) -> str:
        shown = self.body[:60] if self.body else b"(no body)"
        query = self.query.decode()
        return f"{self.method} {self.path}?{query} {self.content_type} {shown!r}"


def probes_for(method: str, template: str) -> Iterator[Probe]:
    """Each malformed request for one route."""
    for path in concrete_paths(template):
        for query in QUERIES:
            yield Probe(method, path, query)
        if method in ("GET", "HEAD", "OPTIONS"):
            continue
        for content_type in CONTENT_TYPES:
            yield Probe(method, path, body=NOT_UTF8, content_type=content_type)
        for body in JSON_BODIES:
            yield Probe(method, path, body=body, content_type="application/json")
        yield Probe(method, path, body=JSON_BODIES[-2])  # JSON without a content type


async def status_of(app: ASGIApp, probe: Probe) -> int:
    """The status the app answers with; an exception before any answer counts as a 500."""
    method, path, query, body, content_type = probe
    headers = list(HEADERS)
    if content_type is not None:
        headers.append((b"content-type", content_type.encode()))
    if body:
        headers.append((b"content-length", str(len(body)).encode()))
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": unquote(path),  # as uvicorn decodes it: a bad escape becomes U+FFFD
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": query,
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("localhost", 80),
        "state": {},
    }
    answered: list[int] = []
    delivered = anyio.Event()
    stop = anyio.CancelScope()

    async def receive() -> Message:
        if not delivered.is_set():
            delivered.set()
            return {"type": "http.request", "body": body, "more_body": False}
        await anyio.sleep_forever()  # the client stays until the status line arrives
        raise AssertionError("unreachable")

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            answered.append(message["status"])
            stop.cancel()  # the status is all this test reads; streams would never end

    with stop:
        try:
            with anyio.fail_after(TIMEOUT_S):
                await app(scope, receive, send)
        except TimeoutError:
            return 504
        except Exception:  # an exception escaping the app is what this test looks for
            if not answered:
                return 500
    return answered[0] if answered else 500


async def no_pause(_: float) -> None:
    """Wrong logins from the fuzz are still counted; the test does not wait out the back-off."""


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, TestClient]]:
    access = Access(TOKEN, pause=no_pause)
    app = create_app(scripted_engine(tmp_path_factory.mktemp("home")), access=access)
    with TestClient(app, base_url="http://localhost") as client:  # startup: Gradio's queue runs
        yield app, client


def test_the_fuzz_reaches_every_kind_of_route(service: tuple[Any, TestClient]) -> None:
    """A guard against a fuzz that silently stopped finding routes (a FastAPI change)."""
    paths = {path for _, path in every_route(service[0].routes)}
    for expected in ("/api/v1/decisions", "/v1/chat/completions", "/gradio_api/queue/join"):
        assert expected in paths
    assert len(paths) > 80


def test_no_malformed_request_on_any_route_gets_a_server_error(
    service: tuple[Any, TestClient],
) -> None:
    app, client = service
    routes = sorted(set(every_route(app.routes)))
    routes += [("POST", LOGIN_PATH), ("GET", LOGIN_PATH), ("GET", LOGOUT_PATH)]
    assert client.portal is not None  # the app's own loop, where its lifespan started the queue
    failures = []
    for method, template in routes:
        for probe in probes_for(method, template):
            status = client.portal.call(status_of, app, probe)
            if status >= 500:
                failures.append(f"{status} {probe}")
    assert not failures, f"{len(failures)} server errors:\n" + "\n".join(failures)
