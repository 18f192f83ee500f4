"""A real `thinkpath serve` process on loopback, with the scripted stand-in model."""

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, sync_playwright

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# Flags that keep Chromium from reaching out to the network on its own (shared/OFFLINE.md).
QUIET_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-features=DnsOverHttps",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
]
SCRIPTED_DELAY_S = 0.5  # per model call: a question takes about 1.5 s, long enough to watch
STARTUP_LIMIT_S = 300  # gradio's import alone takes tens of seconds on a busy 2-core machine


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _serve(home: Path, delay_s: float) -> Iterator[str]:
    port = free_port()
    environment = {
        **os.environ,
        "THINKPATH_HOME": str(home),
        "THINKPATH_POLICY_SEED": "5",
        "GRADIO_ANALYTICS_ENABLED": "False",
    }
    log = (home / "serve.log").open("w")
    process = subprocess.Popen(
        [
            *[sys.executable, "-m", "ui.cli", "serve", "--scripted-model", "--port", str(port)],
            *["--scripted-delay", str(delay_s)],
        ],
        env=environment,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_healthy(url, process, home / "serve.log")
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


@pytest.fixture(scope="session")
def service_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An instant stand-in model: for load and API checks."""
    yield from _serve(tmp_path_factory.mktemp("service-home"), 0.0)


@pytest.fixture(scope="session")
def slow_service_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A stand-in model that takes `SCRIPTED_DELAY_S` a call: for watching a decision run."""
    yield from _serve(tmp_path_factory.mktemp("slow-service-home"), SCRIPTED_DELAY_S)


@pytest.fixture
def browser() -> Iterator[Browser]:
    """Headless Debian chromium, driven by Playwright without downloading a browser."""
    assert Path(CHROMIUM).exists(), "Debian's chromium is missing: run scripts/test to install it"
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=QUIET_FLAGS)
        yield launched
        launched.close()


@pytest.fixture
def screenshots() -> Path:
    """docs/screenshots/: the pictures of every tab that the docs show."""
    folder = Path(__file__).resolve().parents[3] / "docs" / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _wait_until_healthy(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + STARTUP_LIMIT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"thinkpath serve exited with {process.returncode}:\n{log.read_text()}")
        try:
            if httpx.get(f"{url}/api/v1/health", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(1)
    pytest.fail(f"thinkpath serve did not answer within {STARTUP_LIMIT_S} s:\n{log.read_text()}")
