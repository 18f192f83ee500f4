"""The service's guards: bind check, bearer token, body size limit."""

import pytest
from fastapi import Depends, FastAPI
from fastapi.testclient import TestClient

from engine.errors import ConfigError
from ui.service.security import BodySizeLimit, check_bind, is_loopback, token_guard


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("127.0.0.1", True),
        ("127.9.9.9", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("192.168.1.4", False),
        ("example.org", False),
    ],
)
def test_is_loopback(host: str, expected: bool) -> None:
    assert is_loopback(host) is expected


def test_binding_beyond_loopback_needs_a_token() -> None:
    check_bind("127.0.0.1", None)
    check_bind("0.0.0.0", "s3cret")
    with pytest.raises(ConfigError, match="THINKPATH_API_TOKEN"):
        check_bind("0.0.0.0", None)


def make_app(token: str | None, max_bytes: int = 64) -> TestClient:
    app = FastAPI(dependencies=[Depends(token_guard(token))])

    @app.post("/echo")
    async def echo(payload: dict[str, str]) -> dict[str, str]:
        return payload

    app.add_middleware(BodySizeLimit, max_bytes=max_bytes)
    return TestClient(app)


def test_token_is_required_when_configured() -> None:
    client = make_app("s3cret")
    assert client.post("/echo", json={"a": "b"}).status_code == 401
    wrong = client.post("/echo", json={"a": "b"}, headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401
    assert "s3cret" not in wrong.text
    right = client.post("/echo", json={"a": "b"}, headers={"Authorization": "Bearer s3cret"})
    assert right.status_code == 200
    assert right.json() == {"a": "b"}


def test_no_token_configured_means_open_on_loopback() -> None:
    assert make_app(None).post("/echo", json={"a": "b"}).status_code == 200


def test_oversize_body_is_refused_declared_or_streamed() -> None:
    client = make_app(None, max_bytes=64)
    declared = client.post("/echo", json={"a": "x" * 100})
    assert declared.status_code == 413
    assert "larger than 64 bytes" in declared.json()["detail"]

    def chunks():  # no content-length: the middleware must count as it streams
        yield b'{"a": "'
        yield b"x" * 100
        yield b'"}'

    streamed = client.post("/echo", content=chunks(), headers={"content-type": "application/json"})
    assert streamed.status_code == 413
    assert client.post("/echo", json={"a": "small"}).status_code == 200
