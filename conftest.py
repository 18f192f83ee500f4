"""Guards for the whole test session: no test reaches the internet, none writes into the repo.

Both are promises of the project ("no test may reach the internet"; tests write only to their
temporary folders), checked here for every test, doctests included, rather than left to review.

- Network: every connection or name lookup must stay on this machine (loopback addresses, Unix
  sockets). Anything else fails at once with `OutsideNetworkError` naming the address, instead of
  hanging on a closed network or silently depending on one. Child processes that tests start are
  not covered; they get the same offline switches from `scripts/offline-env`.
- Repository: the session compares `git status` before and after; a file a test created or
  changed inside the working tree fails the run, naming the file.
- Imports: modules that Gradio imports lazily are imported once here, in the main thread, before
  any test starts a server thread (see `pytest_configure`).
- Hypothesis: derandomized by default, so the suite that decides whether a change lands is the
  same on every run. Random search found three real bugs in one day (a lone "<|" through the
  sanitiser, "0__0" failing its own exact match, a 500 in the schema fuzz), each now a fixed
  example; but a gate that fails on a new random example blocks unrelated work. To explore, run
  `THINKPATH_HYPOTHESIS_PROFILE=explore bash scripts/test`.
"""

import importlib
import ipaddress
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings as hypothesis_settings

ROOT = Path(__file__).resolve().parent

hypothesis_settings.register_profile("gate", derandomize=True, database=None)
hypothesis_settings.register_profile("explore", max_examples=1000)
hypothesis_settings.load_profile(os.environ.get("THINKPATH_HYPOTHESIS_PROFILE", "gate"))
_LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", ""}


class OutsideNetworkError(OSError):
    """A test tried to reach beyond this machine."""


def _is_local(host: object) -> bool:
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode(errors="replace")
    if not isinstance(host, str):
        return False
    name = host.strip("[]").split("%")[0].lower()
    if name in _LOCAL_NAMES or name.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def _address_host(address: Any) -> object:
    if isinstance(address, tuple) and address:
        return address[0]
    return None  # a Unix socket path: local by definition


_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_real_getaddrinfo = socket.getaddrinfo


def _guarded_connect(self: socket.socket, address: Any) -> None:
    if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_local(_address_host(address)):
        raise OutsideNetworkError(f"a test tried to connect to {address!r}: tests stay offline")
    _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> int:
    if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_local(_address_host(address)):
        raise OutsideNetworkError(f"a test tried to connect to {address!r}: tests stay offline")
    return _real_connect_ex(self, address)


def _guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
    if not _is_local(host):
        raise OutsideNetworkError(f"a test tried to look up {host!r}: tests stay offline")
    return _real_getaddrinfo(host, *args, **kwargs)


def _repository_changes() -> set[str] | None:
    """`git status` lines of the working tree, or None where git cannot tell (not a checkout)."""
    try:
        result = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=all"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return set(result.stdout.splitlines())


# Gradio tries to import these each time it renders a page's config, also in server threads.
# CPython 3.11's import lock is not re-entrant (gh-91351, fixed in 3.12): a main thread waiting for
# another thread's import of the same name, that meanwhile runs a finaliser which imports (an
# unclosed socket's ResourceWarning does), fails with `KeyError` in `_ModuleLock.acquire`. That
# broke one CI run. So each is imported once, here, before any server thread exists; one that is
# not installed is marked absent (None in `sys.modules`), which makes later imports fail at once,
# without taking the lock. Gradio reads either outcome as "not in a notebook". FastAPI imports
# `pydantic.v1` the first time it builds a route, which a module-scoped app fixture does: the
# same failure struck there once the earlier tests had left a loop for the collector.
_LAZILY_IMPORTED = ("IPython", "IPython.core", "IPython.core.getipython", "pydantic.v1")


def pytest_configure() -> None:
    for name in _LAZILY_IMPORTED:
        try:
            importlib.import_module(name)
        except ImportError:
            sys.modules.setdefault(name, None)  # type: ignore[arg-type]


@pytest.fixture(scope="session", autouse=True)
def _offline_and_clean() -> Iterator[None]:
    before = _repository_changes()
    socket.socket.connect = _guarded_connect  # type: ignore[method-assign, assignment]
    socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign, assignment]
    socket.getaddrinfo = _guarded_getaddrinfo
    try:
        yield
    finally:
        socket.socket.connect = _real_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = _real_connect_ex  # type: ignore[method-assign]
        socket.getaddrinfo = _real_getaddrinfo
    after = _repository_changes()
    if before is not None and after is not None and after - before:
        written = "\n  ".join(sorted(after - before))
        pytest.fail(f"tests wrote into the repository:\n  {written}", pytrace=False)
