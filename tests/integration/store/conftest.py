"""Real processes sharing one store: helpers to start them and to seed their decisions."""

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.adapters.store.sandbox import temporary_schema
from engine.adapters.store.sql import SqlStore
from tests.factories import decision_record

WORKER = Path(__file__).with_name("worker.py")
POSTGRES_URL = os.environ.get(
    "THINKPATH_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
PATHS = ("first_principles", "work_backwards", "analogy", "systematic")
TOOLS = ("calculator", "search")


def spawn(*args: object) -> subprocess.Popen[str]:
    """Start worker.py with `args` in a fresh Python process."""
    return subprocess.Popen(
        [sys.executable, str(WORKER), *map(str, args)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def seed(url: str, workers: int, count: int) -> None:
    """Save the decisions that worker.py's `write` mode scores (w{worker}-{index})."""
    with SqlStore(url) as store:
        store.save_decisions(
            [
                decision_record(
                    f"w{worker}-{index}",
                    path=PATHS[index % 4],
                    tool=TOOLS[(index // 4) % 2],
                    query=f"question {index}",
                    context=(float(worker), float(index % 3)),
                    propensities={"path": 0.25, "tool": 0.5},
                )
                for worker in range(workers)
                for index in range(count)
            ]
        )


@pytest.fixture
def postgres_url() -> Iterator[str]:
    with temporary_schema(POSTGRES_URL) as url:
        yield url


@pytest.fixture
def start_worker() -> Iterator[Any]:
    """Start worker processes; any still running at the end of the test is killed."""
    started: list[subprocess.Popen[str]] = []

    def start(*args: object) -> subprocess.Popen[str]:
        process = spawn(*args)
        started.append(process)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait()
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream:
                stream.close()


@pytest.fixture
def seed_decisions() -> Any:
    """Save the decisions that worker.py's `write` mode scores: seed_decisions(url, n, count)."""
    return seed
