"""Real `thinkpath serve` processes on loopback, with the scripted stand-in model, and a browser.

`service_url` is the tokenless loopback service (`slow_service_url` the same with a slowed
stand-in model, to watch a decision run); `guarded_service` reads its token from a file and lets
exactly one other origin (`GuardedService.allowed_origin`) read its answers.
"""

import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser, sync_playwright

from ui.headless_browser import CHROMIUM, QUIET_FLAGS
from ui.local_server import ServerNotReadyError, free_port, wait_until_healthy

SCRIPTED_DELAY_S = 0.5  # per model call: a question takes about 1.5 s, long enough to watch
# Screenshots go to a temporary folder unless this names one (docs/screenshots to refresh the
# docs' pictures): a test run never writes into the repository by itself.
SCREENSHOT_DIR = "THINKPATH_SCREENSHOT_DIR"


@dataclass(frozen=True)
class GuardedService:
    url: str
    token: str
    allowed_origin: str  # the one origin THINKPATH_CORS_ORIGINS names
    foreign_origin: str  # another loopback origin, listed nowhere

    @property
    def bearer(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


@contextmanager
def serving(
    home: Path,
    *,
    host: str = "127.0.0.1",
    arguments: list[str] | None = None,
    environment: Mapping[str, str] | None = None,
    delay_s: float = 0.0,
    headers: Mapping[str, str] | None = None,
) -> Iterator[str]:
    """`thinkpath serve --scripted-model` on a free port; yields its loopback URL.

    The service reads its token only from `environment` or `arguments`, never from the
    environment the tests run in.
    """
    port = free_port()
    full_environment = {
        **os.environ,
        "THINKPATH_HOME": str(home),
        "THINKPATH_POLICY_SEED": "5",
        "GRADIO_ANALYTICS_ENABLED": "False",
    }
    full_environment.pop("THINKPATH_API_TOKEN", None)
    full_environment.update(environment or {})
    token = full_environment.get("THINKPATH_API_TOKEN")
    if headers is None and token:
        headers = {"Authorization": f"Bearer {token}"}
    log = (home / "serve.log").open("w")
    process = subprocess.Popen(
        [
            *[sys.executable, "-m", "ui.cli", "serve", "--scripted-model"],
            *["--host", host, "--port", str(port), "--scripted-delay", str(delay_s)],
            *(arguments or []),
        ],
        env=full_environment,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        try:
            wait_until_healthy(
                f"{url}/api/v1/health",
                process,
                home / "serve.log",
                what="thinkpath serve",
                headers=headers,
            )
        except ServerNotReadyError as error:
            pytest.fail(str(error))
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:  # a client's open stream can hold the shutdown up
            process.kill()
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


@pytest.fixture(scope="session")
def guarded_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GuardedService]:
    home = tmp_path_factory.mktemp("guarded-home")
    token = "integration-token-" + "x" * 16
    token_file = home / "token"
    token_file.write_text(token + "\n")
    token_file.chmod(0o600)
    allowed, foreign = f"http://127.0.0.1:{free_port()}", f"http://127.0.0.1:{free_port()}"
    with serving(
        home,
        arguments=["--token-file", str(token_file)],
        environment={"THINKPATH_CORS_ORIGINS": allowed},
        headers={"Authorization": f"Bearer {token}"},
    ) as url:
        yield GuardedService(url, token, allowed, foreign)


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
