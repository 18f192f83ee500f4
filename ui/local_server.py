"""A local server started as a child process: a free port for it, and the wait for its health
check. The browser tests and the docs' screenshot tool (`ui.mlflow_screenshots`) start
`thinkpath serve` or MLflow's server and wait for them alike.
"""

import socket
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

import httpx

__all__ = ["STARTUP_LIMIT_S", "ServerNotReadyError", "free_port", "wait_until_healthy"]

# gradio's and MLflow's imports alone take tens of seconds on a busy 2-core machine
STARTUP_LIMIT_S = 300


class ServerNotReadyError(RuntimeError):
    """The server exited, or did not answer its health check in time; the message holds its log."""


def free_port() -> int:
    """A port on the loopback that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_until_healthy(
    health_url: str,
    process: subprocess.Popen[bytes],
    log: Path,
    *,
    what: str,
    headers: Mapping[str, str] | None = None,
    limit_s: float = STARTUP_LIMIT_S,
) -> None:
    """Return once `health_url` answers 200; `ServerNotReadyError` (naming `what`, with the
    server's `log`) if `process` exits first or `limit_s` passes."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ServerNotReadyError(
                f"{what} exited with {process.returncode}:\n{log.read_text()}"
            )
        try:
            if httpx.get(health_url, headers=dict(headers or {}), timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(1)
    raise ServerNotReadyError(f"{what} did not answer within {limit_s:g} s:\n{log.read_text()}")
