"""The guards over the whole service: from the first byte of start-up, on every route, Gradio's too.

Each test drives the stack that `thinkpath serve` runs (`Guards.wrap`) or the app that
`create_app` builds, so what it shows is what a client meets.
"""

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tests.unit.ui.conftest import scripted_engine
from ui.service.app import create_app
from ui.service.auth import Access
from ui.service.guard_stack import Guards
from ui.service.guards import MAX_URL_BYTES
from ui.service.starting import StartingApp
from ui.service.strict_json import MAX_DEPTH

TOKEN = "start-up-token-0123456789"
BEARER = {"Authorization": f"Bearer {TOKEN}"}
LOCAL = "http://localhost:8765"


def call(app: Any, method: str, path: str, **options: Any) -> httpx.Response:
    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=LOCAL) as client:
            return await client.request(method, path, **options)

    return asyncio.run(go())


@pytest.fixture
def starting() -> Iterator[Any]:
    """A guarded service whose build has not finished (it waits until the test ends)."""
    release = threading.Event()

    def build(report: Any) -> Any:
        report("the language model")
        release.wait(timeout=30)
        return FastAPI()

    app = StartingApp(build)
    app.start()
    yield Guards(Access(TOKEN), max_body_bytes=1024).wrap(app)
    release.set()


def test_every_guard_holds_while_the_service_is_starting(starting: Any) -> None:
    health = call(starting, "GET", "/api/v1/health", headers=BEARER)
    assert (health.status_code, health.json()["status"]) == (503, "starting")
    anonymous = call(starting, "GET", "/api/v1/health")
    assert anonymous.status_code == 401
    assert "loading" not in anonymous.text  # nothing about the service before the token
    rebound = call(starting, "GET", "/", headers={**BEARER, "host": "rebind.evil.test"})
    assert rebound.status_code == 400
    too_big = call(starting, "POST", "/api/v1/decisions", headers=BEARER, content=b"x" * 2048)
    assert too_big.status_code == 413
    not_strict = call(
        starting,
        "POST",
        "/api/v1/decisions",
        headers={**BEARER, "content-type": "application/json"},
        content=b'{"query": NaN}',
    )
    assert not_strict.status_code == 422
    long_url = call(starting, "GET", "/?q=" + "x" * MAX_URL_BYTES, headers=BEARER)
    assert long_url.status_code == 414


def test_the_start_up_failure_is_told_only_to_whoever_holds_the_token() -> None:
    def build(report: Any) -> Any:
        raise RuntimeError("no model at /srv/secret/models/q4.gguf")

    app = StartingApp(build)
    app.start()
    app._thread.join(timeout=10)
    guarded = Guards(Access(TOKEN)).wrap(app)
    anonymous = call(guarded, "GET", "/api/v1/health")
    assert anonymous.status_code == 401
    assert "secret" not in anonymous.text
    told = call(guarded, "GET", "/api/v1/health", headers=BEARER)
    assert told.status_code == 500
    assert told.json() == {"status": "failed", "error": "no model at /srv/secret/models/q4.gguf"}


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("home")


@pytest.fixture(scope="module")
def service(home: Path) -> Iterator[TestClient]:
    """The whole service, API and Gradio playground, as `create_app` builds it."""
    with TestClient(create_app(scripted_engine(home)), base_url=LOCAL) as client:
        yield client


# Every route that reads a JSON body: ThinkPath's and Gradio's.
JSON_ROUTES = [
    "/api/v1/decisions",
    "/api/v1/decisions/some-id/outcomes",
    "/api/v1/templates",
    "/api/v1/templates/direct_answer/retire",
    "/v1/chat/completions",
    "/gradio_api/queue/join",
    "/gradio_api/call/ask",
    "/gradio_api/run/predict",
    "/gradio_api/component_server",
]


@pytest.mark.parametrize("path", JSON_ROUTES)
@pytest.mark.parametrize("declared", [True, False], ids=["json", "no content type"])
def test_json_nested_1000_deep_is_a_422_on_every_route(
    service: TestClient, path: str, declared: bool
) -> None:
    headers = {"content-type": "application/json"} if declared else {}
    deep = service.post(path, content=b"[" * 1000 + b"]" * 1000, headers=headers)
    assert deep.status_code == 422, deep.text
    assert f"nested more than {MAX_DEPTH} deep" in deep.text


@pytest.mark.parametrize("path", JSON_ROUTES)
def test_json_as_deep_as_allowed_reaches_the_route_and_is_no_500(
    service: TestClient, path: str
) -> None:
    body = b'{"a": ' + b"[" * (MAX_DEPTH - 1) + b"]" * (MAX_DEPTH - 1) + b"}"
    response = service.post(path, content=body, headers={"content-type": "application/json"})
    assert response.status_code < 500, response.text
    assert "nested more than" not in response.text


@pytest.mark.parametrize("path", ["/", "/config", "/api/v1/health", "/gradio_api/info"])
def test_a_url_over_the_limit_is_a_414_before_gradio(service: TestClient, path: str) -> None:
    assert service.get(f"{path}?q={'x' * 100}").status_code == 200
    long = service.get(f"{path}?q={'x' * 60 * 1024}")  # httpx sends at most 64 KiB
    assert long.status_code == 414
    assert "longer than" in long.json()["detail"]


@pytest.mark.parametrize("path", ["/gradio_api/upload", "/gradio_api/process_recording"])
def test_uploads_are_off(service: TestClient, home: Path, path: str) -> None:
    refused = service.post(path, files={"files": ("note.txt", b"planted", "text/plain")})
    assert refused.status_code == 415
    assert "uploads are off" in refused.json()["detail"]


def test_without_the_guard_gradio_would_store_the_upload_outside_the_home(home: Path) -> None:
    # What the guard stops: Gradio's own route takes the file and keeps it in its temp folder.
    bare = create_app(scripted_engine(home), guarded=False)
    with TestClient(bare, base_url=LOCAL) as client:
        stored = client.post(
            "/gradio_api/upload", files={"files": ("note.txt", b"planted", "text/plain")}
        )
    assert stored.status_code == 200
    (path,) = stored.json()
    assert Path(path).read_bytes() == b"planted"
    assert not Path(path).resolve().is_relative_to(home.resolve())
    Path(path).unlink()


@pytest.mark.parametrize(
    "content_type", [None, "", "application/json; charset=utf-8", "application/x+json"]
)
def test_every_body_fastapi_reads_as_json_is_checked(
    service: TestClient, content_type: str | None
) -> None:
    # FastAPI parses a body as JSON when the content type is missing or empty too.
    headers = {} if content_type is None else {"content-type": content_type}
    response = service.post(
        "/api/v1/decisions", content=b'{"query": "2 + 2", "x": NaN}', headers=headers
    )
    assert response.status_code == 422
    assert "NaN is not a JSON number" in response.text
