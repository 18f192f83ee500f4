"""A real `thinkpath serve` process on loopback, with the scripted stand-in model, and a browser."""

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
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
# Screenshots go to a temporary folder unless this names one (docs/screenshots to refresh the
# docs' pictures): a test run never writes into the repository by itself.
SCREENSHOT_DIR = "THINKPATH_SCREENSHOT_DIR"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def serving(
    home: Path,
    *,
    host: str = "127.0.0.1",
    environment: dict[str, str] | None = None,
    delay_s: float = 0.0,
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
            *[sys.executable, "-m", "ui.cli", "serve", "--scripted-model"],
            *["--host", host, "--port", str(port), "--scripted-delay", str(delay_s)],
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


@pytest.fixture(scope="session")
def service_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An instant stand-in model: for load and API checks."""
    with serving(tmp_path_factory.mktemp("service-home")) as url:
        yield url


@pytest.fixture(scope="session")
def slow_service_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A stand-in model that takes `SCRIPTED_DELAY_S` a call: for watching a decision run."""
    with serving(tmp_path_factory.mktemp("slow-service-home"), delay_s=SCRIPTED_DELAY_S) as url:
        yield url


@pytest.fixture
def browser() -> Iterator[Browser]:
    """Headless Debian chromium, driven by Playwright without downloading a browser."""
    assert Path(CHROMIUM).exists(), "Debian's chromium is missing: run scripts/test to install it"
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=QUIET_FLAGS)
        yield launched
        launched.close()


@pytest.fixture
def screenshots(tmp_path: Path) -> Path:
    """Where the tab screenshots go: `$THINKPATH_SCREENSHOT_DIR` if set, else a temporary folder.

    Refresh the docs' pictures with
    `THINKPATH_SCREENSHOT_DIR=docs/screenshots .venv/bin/pytest tests/integration/ui -k browser`.
    """
    chosen = os.environ.get(SCREENSHOT_DIR)
    folder = Path(chosen) if chosen else tmp_path / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


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
