"""Real `thinkpath serve` processes on loopback, with the scripted stand-in model.

`service_url` is the tokenless loopback service; `guarded_service` reads its token from a file
and lets exactly one other origin (`GuardedService.allowed_origin`) read its answers.
"""

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

STARTUP_LIMIT_S = 300  # gradio's import alone takes tens of seconds on a busy 2-core machine


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass(frozen=True)
class GuardedService:
    url: str
    token: str
    allowed_origin: str  # the one origin THINKPATH_CORS_ORIGINS names
    foreign_origin: str  # another loopback origin, listed nowhere

    @property
    def bearer(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


@pytest.fixture(scope="session")
def service_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home = tmp_path_factory.mktemp("service-home")
    with _serve(home, [], {}) as url:
        yield url


@pytest.fixture(scope="session")
def guarded_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GuardedService]:
    home = tmp_path_factory.mktemp("guarded-home")
    token = "integration-token-" + "x" * 16
    token_file = home / "token"
    token_file.write_text(token + "\n")
    token_file.chmod(0o600)
    allowed, foreign = f"http://127.0.0.1:{free_port()}", f"http://127.0.0.1:{free_port()}"
    environment = {"THINKPATH_CORS_ORIGINS": allowed}
    headers = {"Authorization": f"Bearer {token}"}
    with _serve(home, ["--token-file", str(token_file)], environment, headers) as url:
        yield GuardedService(url, token, allowed, foreign)


@contextlib.contextmanager
def _serve(
    home: Path,
    arguments: list[str],
    environment: Mapping[str, str],
    headers: Mapping[str, str] | None = None,
) -> Iterator[str]:
    port = free_port()
    full_environment = {
        **os.environ,
        "THINKPATH_HOME": str(home),
        "THINKPATH_POLICY_SEED": "5",
        "GRADIO_ANALYTICS_ENABLED": "False",
        **environment,
    }
    full_environment.pop("THINKPATH_API_TOKEN", None)
    log = (home / "serve.log").open("w")
    command = [sys.executable, "-m", "ui.cli", "serve", "--scripted-model", "--port", str(port)]
    process = subprocess.Popen(
        [*command, *arguments], env=full_environment, stdout=log, stderr=subprocess.STDOUT
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_healthy(url, process, home / "serve.log", headers or {})
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


def _wait_until_healthy(
    url: str, process: subprocess.Popen[bytes], log: Path, headers: Mapping[str, str]
) -> None:
    deadline = time.monotonic() + STARTUP_LIMIT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"thinkpath serve exited with {process.returncode}:\n{log.read_text()}")
        try:
            if httpx.get(f"{url}/api/v1/health", headers=headers, timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(1)
    pytest.fail(f"thinkpath serve did not answer within {STARTUP_LIMIT_S} s:\n{log.read_text()}")
