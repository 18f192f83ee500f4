"""The token gate over the whole service, the playground and any later route included."""

import hmac
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from engine.errors import ConfigError
from tests.unit.ui.conftest import scripted_engine
from ui.service.api import create_api
from ui.service.app import create_app
from ui.service.auth import SESSION_COOKIE, Access
from ui.service.throttle import FailureThrottle

TOKEN = "test-token-0123456789"
BEARER = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    # Every test here sends wrong tokens from one address: allow them all (back-off has its own
    # tests below).
    lenient = Access(TOKEN, throttle=FailureThrottle(free_failures=10_000))
    service = create_app(scripted_engine(tmp_path_factory.mktemp("home")), access=lenient)

    @service.get("/v1/added-later")  # a route someone adds later, knowing nothing of the gate
    def added_later() -> dict[str, str]:
        return {"reached": "yes"}

    # Put it before the playground's catch-all mount, as a route in create_api would be.
    service.router.routes.insert(0, service.router.routes.pop())
    return service


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app, base_url="http://127.0.0.1:8765", follow_redirects=False) as test_client:
        yield test_client


GUARDED = [
    ("GET", "/api/v1/health"),
    ("POST", "/api/v1/decisions"),
    ("GET", "/docs"),
    ("GET", "/openapi.json"),
    ("GET", "/redoc"),
    ("GET", "/"),
    ("GET", "/config"),
    ("GET", "/gradio_api/info"),
    ("GET", "/gradio_api/openapi.json"),
    ("POST", "/gradio_api/call/ask"),
    ("POST", "/gradio_api/queue/join"),
    ("GET", "/v1/added-later"),
    ("GET", "/no/such/route"),
]


@pytest.mark.parametrize(("method", "path"), GUARDED)
def test_every_route_needs_the_token(client: TestClient, method: str, path: str) -> None:
    refused = client.request(method, path, json={})
    assert refused.status_code == 401, (refused.text, refused.headers)
    assert refused.headers["www-authenticate"] == "Bearer"
    assert "ask" not in refused.text  # nothing of the API description leaks
    wrong = client.request(method, path, json={}, headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401
    assert TOKEN not in wrong.text


@pytest.mark.parametrize("path", ["/api/v1/health", "/openapi.json", "/docs", "/config"])
def test_the_bearer_token_opens_every_route(client: TestClient, path: str) -> None:
    assert client.get(path, headers=BEARER).status_code == 200


def test_a_later_route_is_guarded_without_its_help(client: TestClient) -> None:
    assert client.get("/v1/added-later").status_code == 401
    assert client.get("/v1/added-later", headers=BEARER).json() == {"reached": "yes"}


def test_a_browser_is_sent_to_a_login_page_that_tells_nothing(client: TestClient) -> None:
    page = client.get("/", headers={"accept": "text/html"})
    assert page.status_code == 303
    assert page.headers["location"] == "/login"
    login = client.get("/login")
    assert login.status_code == 200
    assert 'name="token"' in login.text
    for secret in ("gradio_api_info", "/ask", "api_name", "named_endpoints", "decisions"):
        assert secret not in login.text


def test_logging_in_gives_a_strict_session_and_logging_out_ends_it(client: TestClient) -> None:
    wrong = client.post("/login", data={"token": "guess-guess-guess"})
    assert wrong.status_code == 401
    assert "Wrong token" in wrong.text
    assert SESSION_COOKIE not in client.cookies
    right = client.post("/login", data={"token": TOKEN})
    assert right.status_code == 303
    cookie = right.headers["set-cookie"]
    assert "HttpOnly" in cookie
    assert "SameSite=Strict" in cookie
    assert client.get("/config").status_code == 200  # the session opens the playground
    assert client.get("/docs").status_code == 200
    assert client.get("/").status_code == 200
    client.get("/logout")
    assert client.get("/config").status_code == 401


def test_gradio_client_style_login_gets_a_cookie_not_a_redirect(client: TestClient) -> None:
    response = client.post("/login", data={"username": "thinkpath", "password": TOKEN})
    assert response.status_code == 200
    assert SESSION_COOKIE in response.cookies
    assert client.get("/config").status_code == 200


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


def throttled_api(clock: Clock) -> TestClient:
    throttle = FailureThrottle(free_failures=3, first_lockout_s=30, clock=clock)
    access = Access(TOKEN, throttle=throttle)
    api = create_api(scripted_engine(Path("/nonexistent-home")), access=access)
    return TestClient(api, base_url="http://localhost")


def test_wrong_bearer_tokens_lock_the_address_out_even_for_the_right_one() -> None:
    clock = Clock()
    client = throttled_api(clock)
    for _ in range(4):
        assert (
            client.get("/api/v1/health", headers={"Authorization": "Bearer x"}).status_code == 401
        )
    locked = client.get("/api/v1/health", headers=BEARER)
    assert locked.status_code == 429
    assert locked.headers["retry-after"] == "31"
    clock.now += 31
    assert client.get("/api/v1/health", headers=BEARER).status_code == 200


def test_wrong_logins_lock_the_address_out_too() -> None:
    clock = Clock()
    client = throttled_api(clock)
    for _ in range(4):
        assert client.post("/login", data={"token": "x"}).status_code == 401
    locked = client.post("/login", data={"token": TOKEN}, follow_redirects=False)
    assert locked.status_code == 429
    assert "wait" in locked.text
    clock.now += 31
    assert client.post("/login", data={"token": TOKEN}, follow_redirects=False).status_code == 303


def test_the_token_is_compared_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    access = Access(TOKEN)
    assert access.matches(TOKEN)
    assert not access.matches(TOKEN[:-1])
    assert len(calls) == 2
    assert all(len(a) == len(b) == 32 for a, b in calls)  # digests: the length leaks nothing


def test_without_a_token_the_loopback_service_is_open_but_host_checked(
    tmp_path: Path,
) -> None:
    app = create_app(scripted_engine(tmp_path))
    with TestClient(app, base_url="http://127.0.0.1:8765") as open_client:
        assert open_client.get("/api/v1/health").status_code == 200
        assert open_client.get("/config").status_code == 200
        rebound = {"host": "rebind.evil.test:8765"}
        assert (
            open_client.post("/api/v1/decisions", json={"query": "x"}, headers=rebound).status_code
            == 400
        )
        assert open_client.get("/config", headers=rebound).status_code == 400
        foreign = {"origin": "http://evil.test"}
        config = open_client.get("/config", headers=foreign)
        assert not [h for h in config.headers if h.startswith("access-control-")]
        preflight = open_client.options(
            "/gradio_api/call/ask", headers={**foreign, "access-control-request-method": "POST"}
        )
        assert preflight.status_code == 403
        assert "access-control-allow-origin" not in preflight.headers
        blind = open_client.post(
            "/api/v1/templates", content=b"{}", headers={**foreign, "content-type": "text/plain"}
        )
        assert blind.status_code == 403


def test_a_websocket_needs_the_token_too() -> None:
    from starlette.websockets import WebSocket, WebSocketDisconnect

    api = create_api(scripted_engine(Path("/nonexistent-home")), token=TOKEN)

    @api.websocket("/ws")
    async def echo(socket: WebSocket) -> None:
        await socket.accept()
        await socket.send_text("open")
        await socket.close()

    client = TestClient(api)
    local = {"host": "localhost"}  # TestClient names "testserver" on websockets whatever the URL
    with pytest.raises(WebSocketDisconnect), client.websocket_connect("/ws", headers=local):
        pass
    with client.websocket_connect("/ws", headers={**local, **BEARER}) as socket:
        assert socket.receive_text() == "open"


def test_a_short_token_cannot_even_be_built_into_an_app() -> None:
    with pytest.raises(ConfigError, match="at least 16"):
        Access("t0ken")
