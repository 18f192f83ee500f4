"""Stores to test: the in-memory double, a SQLite file, and a PostgreSQL schema of its own.

The PostgreSQL tests need the server at THINKPATH_TEST_POSTGRES_URL; when it is unreachable they
fail, they do not skip (a skipped test is not a passing test).
"""

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.adapters.store.memory import InMemoryStore
from engine.adapters.store.sandbox import temporary_schema
from engine.adapters.store.sql import SqlStore
from engine.domain.records import ArmRecord, DecisionRecord
from tests.factories import arm_record, decision_record

POSTGRES_URL = os.environ.get(
    "THINKPATH_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


class Records:
    """The shared record factories (`tests.factories`), with this suite's richer defaults."""

    @staticmethod
    def decision(
        decision_id: str,
        namespace: str = "default",
        path: str = "first_principles",
        tool: str | None = "calculator",
        **changes: Any,
    ) -> DecisionRecord:
        payload = {"candidates": [{"arm": path, "score": 0.7}], "cost": {"calls": 3}}
        fields: dict[str, Any] = {"context": (1.0, 0.0, 0.25), "payload": payload}
        return decision_record(decision_id, namespace, path, tool, **(fields | changes))

    @staticmethod
    def arm(arm_id: str, namespace: str = "default", **changes: Any) -> ArmRecord:
        fields: dict[str, Any] = {"definition": {"steps": ["restate", "solve"]}}
        return arm_record(arm_id, namespace, **(fields | changes))


@pytest.fixture
def records() -> type[Records]:
    return Records


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[SqlStore]:
    with SqlStore(f"sqlite:///{tmp_path / 'store.sqlite3'}") as store:
        yield store


@pytest.fixture
def postgres_url() -> Iterator[str]:
    with temporary_schema(POSTGRES_URL) as url:
        yield url


@pytest.fixture
def postgres_store(postgres_url: str) -> Iterator[SqlStore]:
    with SqlStore(postgres_url) as store:
        yield store


@pytest.fixture(params=["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest) -> InMemoryStore | SqlStore:
    """Each store implementation in turn: they must behave the same."""
    if request.param == "memory":
        return InMemoryStore()
    name = "sqlite_store" if request.param == "sqlite" else "postgres_store"
    result = request.getfixturevalue(name)
    assert isinstance(result, SqlStore)
    return result


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def sql_store(request: pytest.FixtureRequest) -> SqlStore:
    """Each SQL backend in turn."""
    result = request.getfixturevalue(f"{request.param}_store")
    assert isinstance(result, SqlStore)
    return result
