"""A real `thinkpath serve` process on loopback, with the scripted stand-in model."""

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

STARTUP_LIMIT_S = 300  # gradio's import alone takes tens of seconds on a busy 2-core machine


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def service_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(tmp_path_factory.mktemp("service-home")) as url:
        yield url


@contextmanager
def serving(
    home: Path, *, host: str = "127.0.0.1", environment: dict[str, str] | None = None
) -> Iterator[str]:
    """`thinkpath serve --scripted-model` on a free port; yields its loopback URL."""
    port = free_port()
    environment = {
        **os.environ,
        "THINKPATH_HOME": str(home),
        "THINKPATH_POLICY_SEED": "5",
        "GRADIO_ANALYTICS_ENABLED": "False",
        **(environment or {}),
    }
    log = (home / "serve.log").open("w")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ui.cli",
            "serve",
            "--scripted-model",
            "--host",
            host,
            "--port",
            str(port),
        ],
        env=environment,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_healthy(url, process, home / "serve.log", environment)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


def _wait_until_healthy(
    url: str, process: subprocess.Popen[bytes], log: Path, environment: dict[str, str]
) -> None:
    deadline = time.monotonic() + STARTUP_LIMIT_S
    token = environment.get("THINKPATH_API_TOKEN")
    headers = {"Authorization": f"Bearer {token}"} if token else {}
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
