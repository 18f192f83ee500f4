"""The token gate over the whole service, the playground and any later route included."""

import hmac
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.types import Receive, Scope, Send

from engine.errors import ConfigError
from tests.unit.ui.conftest import scripted_engine
from ui.service.api import create_api
from ui.service.app import create_app
from ui.service.auth import MAX_PAUSE_S, SESSION_COOKIE, Access
from ui.service.guard_stack import Guards
from ui.service.replies import send_response
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


class Pauses:
    """Stands in for `asyncio.sleep`: records how long each wrong credential was held."""

    def __init__(self) -> None:
        self.seconds: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.seconds.append(seconds)


async def reached(scope: Scope, receive: Receive, send: Send) -> None:
    await send_response(send, 200, b"reached", b"text/plain")


def gated(clock: Clock, pauses: Pauses) -> TestClient:
    """The service's whole guard stack over an app that only says it was reached."""
    throttle = FailureThrottle(free_failures=3, first_lockout_s=30, clock=clock)
    access = Access(TOKEN, throttle=throttle, pause=pauses)
    return TestClient(Guards(access).wrap(reached), base_url="http://localhost")


def test_a_thousand_wrong_tokens_are_slowed_and_the_right_one_is_admitted_throughout() -> None:
    clock, pauses = Clock(), Pauses()
    client = gated(clock, pauses)
    statuses: Counter[int] = Counter()
    retry_after: list[int] = []
    for guess in range(1000):
        wrong = client.get("/", headers={"Authorization": f"Bearer guess-{guess:016d}"})
        statuses[wrong.status_code] += 1
        if wrong.status_code == 429:
            retry_after.append(int(wrong.headers["retry-after"]))
        if guess % 10 == 9:  # the owner, from the same address, in the middle of the attack
            owner = client.get("/", headers=BEARER)
            assert (owner.status_code, owner.text) == (200, "reached")
        clock.now += 1.0  # a guess a second, by the throttle's clock
    assert statuses == {401: 3, 429: 997}  # three free failures, then back-off
    assert pauses.seconds == [MAX_PAUSE_S] * 997  # every wrong guess in back-off was held
    assert retry_after[0] == 31  # the first back-off, 30 s ...
    assert max(retry_after) == 301  # ... doubling up to the 300 s cap


def test_wrong_logins_are_slowed_and_the_right_one_still_logs_in() -> None:
    clock, pauses = Clock(), Pauses()
    client = gated(clock, pauses)
    for _ in range(3):
        assert client.post("/login", data={"token": "x"}).status_code == 401
    for _ in range(20):
        slowed = client.post("/login", data={"token": "x"})
        assert slowed.status_code == 429
        assert "wait" in slowed.text
    assert len(pauses.seconds) == 20
    logged_in = client.post("/login", data={"token": TOKEN}, follow_redirects=False)
    assert logged_in.status_code == 303
    assert SESSION_COOKIE in logged_in.cookies
    # The owner's login gives a guesser behind the same address no fresh start.
    assert client.post("/login", data={"token": "x"}).status_code == 429


def test_guessing_stays_slowed_while_the_owner_works() -> None:
    clock, pauses = Clock(), Pauses()
    client = gated(clock, pauses)
    for _ in range(4):
        client.get("/", headers={"Authorization": "Bearer wrong"})
    assert client.get("/", headers=BEARER).status_code == 200
    assert client.get("/", headers={"Authorization": "Bearer wrong"}).status_code == 429


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
