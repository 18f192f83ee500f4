"""Measure this checkout beside another: a benchmark file run on another checkout's code.

A benchmark that takes `--before DIR` runs its own file (this checkout's measuring code) in a
fresh Python process whose imports come from DIR (another checkout, e.g. a `git worktree` of the
commit before a change, run with this virtual environment), alternating with this checkout, so
that both meet the same machine load. The measuring code must use only what both checkouts
have, and print its result as JSON on its last line of output.
"""

import contextlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO, Any

__all__ = ["HERE", "Worker", "run_code_on", "run_on", "start_on"]

HERE = Path(__file__).resolve().parents[2]  # this checkout's root
# Runs a file as __main__ without putting its folder first on the path (as `python FILE` does),
# where `experiments/benchmarks/engine.py` would hide the `engine` package.
_RUN_FILE = (
    "import runpy, sys; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')"
)


def run_on(checkout: Path, script: str, arguments: list[str], *, timeout_s: float = 3600) -> Any:
    """The JSON that `script` (a file of this checkout) prints last, run on `checkout`'s code."""
    return run_code_on(
        checkout, _RUN_FILE, [str(Path(script).resolve()), *arguments], timeout_s=timeout_s
    )


def run_code_on(checkout: Path, code: str, arguments: list[str], *, timeout_s: float = 3600) -> Any:
    """The JSON that `code` (`python -c`) prints last, run in a fresh process on `checkout`'s
    code, with `arguments` as its `sys.argv[1:]`."""
    environment = {**os.environ, "PYTHONPATH": str(checkout)}
    finished = subprocess.run(  # our own benchmark code, on a local store
        [sys.executable, "-c", code, *arguments],
        cwd=checkout,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout_s,
    )
    if finished.returncode != 0:
        raise RuntimeError(f"the measurement failed on {checkout}:\n{finished.stderr[-3000:]}")
    return json.loads(finished.stdout.strip().splitlines()[-1])


class Worker:
    """A benchmark file running on another checkout's code, answering one line per line sent."""

    def __init__(self, process: subprocess.Popen[str], errors: IO[str]) -> None:
        self._process = process
        self._errors = errors  # a file, not a pipe: a pipe nobody reads fills and stalls it

    def ask(self, line: str) -> str:
        """Send `line`; the worker's one-line answer."""
        stdin, stdout = self._process.stdin, self._process.stdout
        assert stdin is not None  # a pipe (`start_on`)
        assert stdout is not None
        stdin.write(line + "\n")
        stdin.flush()
        answer = stdout.readline()
        if not answer:
            raise RuntimeError(f"the worker stopped: {self._error()}")
        return answer.strip()

    def expect(self, text: str) -> None:
        """Wait for the worker's first line, which must be `text`."""
        stdout = self._process.stdout
        assert stdout is not None
        line = stdout.readline().strip()
        if line != text:
            raise RuntimeError(f"the worker said {line!r}, not {text!r}: {self._error()}")

    def close(self) -> None:
        """End the worker (its input closed, then a minute to finish) and its files."""
        process = self._process
        if process.stdin is not None and not process.stdin.closed:
            with contextlib.suppress(BrokenPipeError):  # a worker that stopped already
                process.stdin.close()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()
        self._errors.close()

    def _error(self) -> str:
        """What the worker wrote to its error output, once it is ended."""
        self._process.kill()
        self._process.wait()
        self._errors.seek(0)
        errors = self._errors.read()[-3000:]
        self.close()
        return errors


def start_on(checkout: Path, script: str, arguments: list[str]) -> Worker:
    """`script` (a file of this checkout) started on `checkout`'s code, talking by lines."""
    environment = {**os.environ, "PYTHONPATH": str(checkout)}
    errors = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 - the worker's, closed with it
    process = subprocess.Popen(  # our own benchmark code, on a local store
        [sys.executable, "-c", _RUN_FILE, str(Path(script).resolve()), *arguments],
        cwd=checkout,
        env=environment,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=errors,
        text=True,
    )
    return Worker(process, errors)
