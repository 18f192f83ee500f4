"""The Host allow-list and ThinkPath's own CORS policy, over an app that sets CORS headers itself.

The inner app plays Gradio: it answers every Origin with `access-control-allow-origin: <origin>`
and `access-control-allow-credentials: true`, and counts the requests that reach it, so each test
can show both what the client gets and that a refused request did no work.
"""

import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi.testclient import TestClient

from ui.service.guards import CorsPolicy, HostGuard, host_name

LISTED = "http://allowed.test"
FOREIGN = "http://evil.test"


def permissive_app() -> tuple[FastAPI, list[str]]:
    reached: list[str] = []
    app = FastAPI()

    @app.api_route("/work", methods=["GET", "POST", "OPTIONS"])
    async def work(request: Request) -> JSONResponse:
        reached.append(request.method)
        origin = request.headers.get("origin", "*")
        return JSONResponse(
            {"done": True},
            headers={
                "access-control-allow-origin": origin,
                "access-control-allow-credentials": "true",
            },
        )

    return app, reached


def guarded(origins: tuple[str, ...] = ()) -> tuple[TestClient, list[str]]:
    app, reached = permissive_app()
    app.add_middleware(CorsPolicy, origins=origins)
    app.add_middleware(HostGuard, allowed_hosts=["localhost", "127.0.0.1", "::1"])
    return TestClient(app, base_url="http://127.0.0.1:8765"), reached


@pytest.mark.parametrize("host", ["evil.test", "evil.test:8765", "127.0.0.1.evil.test", ""])
def test_a_foreign_host_is_refused_before_any_work(host: str) -> None:
    client, reached = guarded()
    response = client.post("/work", headers={"host": host})
    assert response.status_code == 400
    assert "THINKPATH_ALLOWED_HOSTS" in response.json()["detail"]
    assert reached == []


@pytest.mark.parametrize("host", ["127.0.0.1:8765", "LOCALHOST", "localhost.", "[::1]:8765"])
def test_loopback_names_are_served(host: str) -> None:
    client, reached = guarded()
    assert client.get("/work", headers={"host": host}).status_code == 200
    assert reached == ["GET"]


def test_a_star_allows_any_host() -> None:
    app, _ = permissive_app()
    app.add_middleware(HostGuard, allowed_hosts=["*"])
    assert TestClient(app).get("/work", headers={"host": "anything.test"}).status_code == 200


def test_host_name_parsing() -> None:
    assert host_name("Example.ORG:80") == "example.org"
    assert host_name("[::1]:8765") == "::1"


def test_closed_by_default_even_when_the_app_says_otherwise() -> None:
    client, reached = guarded()
    response = client.get("/work", headers={"origin": FOREIGN})
    assert response.status_code == 200  # a GET is harmless: the browser just may not read it
    assert not [name for name in response.headers if name.startswith("access-control-")]
    assert "Origin" in response.headers["vary"]
    assert reached == ["GET"]


def test_a_preflight_from_an_unlisted_origin_is_refused_by_us_not_the_app() -> None:
    client, reached = guarded()
    response = client.options(
        "/work",
        headers={"origin": FOREIGN, "access-control-request-method": "POST"},
    )
    assert response.status_code == 403
    assert "access-control-allow-origin" not in response.headers
    assert reached == []


def test_a_listed_origin_gets_exactly_itself_and_never_credentials() -> None:
    client, _ = guarded((LISTED,))
    preflight = client.options(
        "/work",
        headers={
            "origin": LISTED,
            "access-control-request-method": "POST",
            "access-control-request-headers": "authorization, content-type",
        },
    )
    assert preflight.status_code == 204
    assert preflight.headers["access-control-allow-origin"] == LISTED
    assert "access-control-allow-credentials" not in preflight.headers
    simple = client.post("/work", headers={"origin": LISTED})
    assert simple.status_code == 200
    assert simple.headers["access-control-allow-origin"] == LISTED
    assert "access-control-allow-credentials" not in simple.headers
    other = client.get("/work", headers={"origin": FOREIGN})
    assert "access-control-allow-origin" not in other.headers


def test_a_foreign_origin_cannot_change_state_even_blind() -> None:
    client, reached = guarded((LISTED,))
    response = client.post("/work", headers={"origin": FOREIGN, "content-type": "text/plain"})
    assert response.status_code == 403
    assert reached == []


@pytest.mark.parametrize("origin", ["http://127.0.0.1:8765", "http://localhost:8765"])
def test_the_service_own_pages_may_post(origin: str) -> None:
    client, reached = guarded()
    host = origin.removeprefix("http://")
    assert client.post("/work", headers={"origin": origin, "host": host}).status_code == 200
    assert reached == ["POST"]


def test_same_name_on_another_port_or_scheme_is_foreign() -> None:
    client, reached = guarded()
    for origin in ("http://127.0.0.1:9999", "https://127.0.0.1:8765"):
        assert client.post("/work", headers={"origin": origin}).status_code == 403
    assert reached == []


def test_a_wildcard_origin_cannot_be_configured() -> None:
    app, _ = permissive_app()
    with pytest.raises(ValueError, match="named exactly"):
        CorsPolicy(app, ["*"])
