"""The service's start-up checks (bind address, token strength, token file) and body limit."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from engine.errors import ConfigError
from ui.service.security import (
    BodySizeLimit,
    check_bind,
    check_token,
    is_loopback,
    read_token_file,
)

GOOD_TOKEN = "0123456789abcdef"  # exactly 16 characters


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
    check_bind("10.0.0.5", GOOD_TOKEN)
    with pytest.raises(ConfigError, match="THINKPATH_API_TOKEN"):
        check_bind("10.0.0.5", None)


def test_binding_every_address_needs_the_host_names() -> None:
    check_bind("0.0.0.0", GOOD_TOKEN, ["thinkpath.lan"])
    check_bind("::", GOOD_TOKEN, ["*"])
    with pytest.raises(ConfigError, match="THINKPATH_ALLOWED_HOSTS"):
        check_bind("0.0.0.0", GOOD_TOKEN, [])


@pytest.mark.parametrize(
    "token", ["t", "0123456789abcde", " 0123456789abcdef", "0123456789abcde\t"]
)
def test_weak_or_odd_tokens_are_refused_with_how_to_make_one(token: str) -> None:
    with pytest.raises(ConfigError, match=r"at least 16 .*secrets\.token_urlsafe"):
        check_token(token)


def test_a_sixteen_character_token_is_enough() -> None:
    check_token(GOOD_TOKEN)


def test_token_file_is_read_without_its_newline(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text(GOOD_TOKEN + "\n")
    assert read_token_file(path) == GOOD_TOKEN
    path.write_text(GOOD_TOKEN + "\nsecond line\n")
    with pytest.raises(ConfigError, match="one line"):
        read_token_file(path)
    path.write_text("short\n")
    with pytest.raises(ConfigError, match="at least 16"):
        read_token_file(path)
    with pytest.raises(ConfigError, match="cannot read"):
        read_token_file(tmp_path / "missing")


def test_oversize_body_is_refused_declared_or_streamed() -> None:
    app = FastAPI()

    @app.post("/echo")
    async def echo(payload: dict[str, str]) -> dict[str, str]:
        return payload

    app.add_middleware(BodySizeLimit, max_bytes=64)
    client = TestClient(app)
    assert client.post("/echo", json={"a": "b"}).status_code == 200
    declared = client.post("/echo", json={"a": "x" * 100})
    assert declared.status_code == 413
    assert "64 bytes" in declared.json()["detail"]

    def chunks() -> Iterator[bytes]:
        yield b'{"a": "'
        yield b"x" * 100
        yield b'"}'

    streamed = client.post("/echo", content=chunks(), headers={"content-type": "application/json"})
    assert streamed.status_code == 413
