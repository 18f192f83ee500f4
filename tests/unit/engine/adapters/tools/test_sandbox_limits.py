"""The kernel layer on its own: after `isolate` and `set_limits`, a process that has
escaped every Python-level guard still cannot open a file or socket, fork, or lift its limits.

The probe runs the child's own functions in a fresh `python -I -S` process with an empty
environment, exactly as the sandbox starts its child, then tries each escape with the real `os`.
"""

import json
import statistics
import subprocess
import sys
from pathlib import Path

import pytest
import RestrictedPython

import engine.adapters.tools.sandbox_child as child

TOOLS_DIR = str(Path(child.__file__).parent)
RESTRICTED_PYTHON_HOME = str(Path(RestrictedPython.__file__).resolve().parent.parent)

PROBE = """
import json, os, resource, socket, sys
sys.path[:0] = sys.argv[1:3]
import sandbox_child
sandbox_child.isolate()
sandbox_child.set_limits(2, 256 * 2**20)

def attempt(action):
    try:
        action()
    except (OSError, ValueError) as error:
        return type(error).__name__
    return "allowed"

def fork():
    if os.fork() == 0:
        os._exit(0)

results = {
    "open": attempt(lambda: open("/etc/hostname").close()),
    "socket": attempt(lambda: socket.socket().close()),
    "fork": attempt(fork),
    "raise_cpu": attempt(lambda: resource.setrlimit(resource.RLIMIT_CPU, (100, 100))),
    "raise_files": attempt(lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))),
    "environment": sorted(os.environ),
    "root": os.geteuid() == 0,
}
sys.stdout.write(json.dumps(results))
"""


@pytest.fixture(scope="module")
def probe() -> dict[str, object]:
    completed = subprocess.run(
        [sys.executable, "-I", "-S", "-c", PROBE, TOOLS_DIR, RESTRICTED_PYTHON_HOME],
        capture_output=True,
        text=True,
        env={},
        timeout=60,
        check=True,
    )
    result: dict[str, object] = json.loads(completed.stdout)
    return result


@pytest.mark.parametrize("escape", ["open", "socket", "fork", "raise_cpu", "raise_files"])
def test_an_escaped_program_still_cannot(probe: dict[str, object], escape: str) -> None:
    assert probe[escape] != "allowed"


def test_the_child_has_an_empty_environment_and_is_not_root(probe: dict[str, object]) -> None:
    assert probe["environment"] == []
    assert probe["root"] is False


def test_public_view_keeps_functions_and_drops_imported_modules() -> None:
    view = child.public_view(statistics)
    assert view.mean([1, 2, 3]) == 2
    assert not hasattr(view, "sys")
    assert not any(name.startswith("_") for name in vars(view) if name not in _MODULE_DUNDERS)


_MODULE_DUNDERS = {"__name__", "__doc__", "__package__", "__loader__", "__spec__"}


def test_bounded_print_keeps_the_last_characters() -> None:
    collector = child.BoundedPrint(limit=5)
    assert collector() is collector  # one collector for every function that prints
    collector._call_print("abc")
    collector._call_print("defg")
    assert (collector.text, collector.truncated) == ("\ndefg\n"[-5:], True)
