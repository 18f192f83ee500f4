"""Open SQLAlchemy engines on SQLite or PostgreSQL and turn driver failures into store errors.

SQLite runs in WAL mode: readers never wait for the writer, and writers are serialised by
`BEGIN IMMEDIATE`, which takes the write lock at the start of the transaction so that two
writers never both read-then-write (the lost update that a deferred BEGIN allows). Readers use a
second engine with a deferred BEGIN, so a refresh never queues behind writers.

`synchronous=NORMAL` (the default durability) makes a commit durable against a killed process:
the WAL frames are in the operating system before `COMMIT` returns. Power loss may roll back the
last commits (never corrupt the file). `durability="full"` fsyncs the WAL on every commit and
survives power loss too, at about one disk flush per outcome. See docs/store.md.
"""

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import psycopg
from sqlalchemy import Engine, create_engine, event, exc
from sqlalchemy.engine import URL, make_url

from engine.adapters.store.location import default_store_url, sqlite_url
from engine.errors import StoreError, StoreUnavailableError, ThinkPathError

__all__ = [
    "Durability",
    "Engines",
    "default_store_url",
    "open_engines",
    "sqlite_url",
    "translated_errors",
]

Durability = Literal["normal", "full"]


@dataclass(frozen=True)
class Engines:
    """The writer and reader engines of one store and how to name it in messages."""

    writer: Engine
    reader: Engine
    dialect: str  # "sqlite" or "postgresql"
    label: str  # the URL without its password


def open_engines(
    url: str, *, create: bool, durability: Durability, busy_timeout_s: float
) -> Engines:
    """Build the engines for `url`; raise `StoreUnavailableError` when it cannot be a store."""
    try:
        parsed = make_url(url)
    except exc.ArgumentError as error:
        raise StoreUnavailableError(f"not a database URL: {url!r} ({error})") from None
    label = parsed.render_as_string(hide_password=True)
    if durability not in ("normal", "full"):
        raise StoreError(f"durability must be 'normal' or 'full', got {durability!r}")
    if parsed.get_backend_name() == "sqlite":
        _check_sqlite_file(parsed, label, create=create)
        connect_args = {"timeout": busy_timeout_s, "check_same_thread": False}
        # "named" (:name) parameters: the hot paths run compiled SQL on the driver with dicts
        # No rollback when a connection returns to the pool: every use ends its transaction
        # itself (engine.begin() blocks, driver.RawTransactions), and the extra call per
        # outcome is measurable on the hot path.
        options: dict[str, Any] = {"paramstyle": "named", "pool_reset_on_return": None}
        writer = create_engine(parsed, connect_args=connect_args, **options)
        reader = create_engine(parsed, connect_args=connect_args, **options)
        _configure_sqlite(writer, durability, begin="BEGIN IMMEDIATE")
        _configure_sqlite(reader, durability, begin="BEGIN")
        return Engines(writer, reader, "sqlite", label)
    if parsed.get_backend_name() == "postgresql":
        # psycopg's `connect_timeout` is whole seconds; a lock wait is bounded by the server's
        # lock_timeout, which users set on their role or in the URL's `options`.
        engine = create_engine(
            parsed, connect_args={"connect_timeout": max(1, round(busy_timeout_s))}
        )
        return Engines(engine, engine, "postgresql", label)
    raise StoreUnavailableError(
        f"unsupported database {label!r}: use sqlite:///PATH or postgresql+psycopg://..."
    )


def _check_sqlite_file(url: URL, label: str, *, create: bool) -> None:
    if not url.database or url.database == ":memory:":
        raise StoreUnavailableError(
            f"{label}: a store needs a file (several processes share it), not an in-memory "
            "database; use engine.adapters.store.memory.InMemoryStore for a throw-away store"
        )
    if url.query.get("uri"):
        return  # a file: URI (e.g. mode=ro) is the user's explicit choice
    path = Path(url.database)
    if path.exists():
        if not path.is_file():
            raise StoreUnavailableError(f"{label}: {path} is not a file")
        return
    if not create:
        raise StoreUnavailableError(f"{label}: no store at {path} (the file does not exist)")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StoreUnavailableError(f"{label}: cannot create {path.parent}: {error}") from None


def _configure_sqlite(engine: Engine, durability: Durability, *, begin: str) -> None:
    synchronous = durability.upper()

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # pysqlite's own transaction handling would defer BEGIN; SQLAlchemy's documented recipe
        # turns it off and emits the BEGIN we want in the "begin" hook.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute(f"PRAGMA synchronous={synchronous}")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        connection.exec_driver_sql(begin)


@contextmanager
def translated_errors(label: str, action: str) -> Iterator[None]:
    """Turn a driver's failure during `action` into a `StoreError` that says what went wrong."""
    try:
        yield
    except ThinkPathError:
        raise
    except exc.DBAPIError as error:
        raise _store_error(label, action, error.orig or error) from error
    except (sqlite3.Error, psycopg.Error) as error:  # from the driver-level hot paths
        raise _store_error(label, action, error) from error
    except exc.SQLAlchemyError as error:
        raise StoreError(f"{label}: {action} failed: {error}") from error


def _store_error(label: str, action: str, error: BaseException) -> StoreError:
    reason = (str(error).strip().splitlines() or [type(error).__name__])[0]
    lowered = reason.lower()
    if isinstance(error, sqlite3.IntegrityError | psycopg.IntegrityError):
        return StoreError(f"{label}: {action} failed, a constraint was violated: {reason}")
    if "locked" in lowered or "busy" in lowered:
        hint = "another process holds the write lock for too long"
    elif "readonly" in lowered or "read-only" in lowered:
        hint = "the database is read-only"
    elif "not a database" in lowered or "malformed" in lowered or "corrupt" in lowered:
        hint = "the file is corrupt or not a SQLite database"
    elif "unable to open" in lowered:
        hint = "the file cannot be opened (missing folder or no permission)"
    elif "no such table" in lowered or "does not exist" in lowered:
        hint = "its tables are missing (not a ThinkPath store, or damaged)"
    elif isinstance(error, psycopg.OperationalError | psycopg.InterfaceError):
        hint = "the database server is unreachable or refused the connection"
    elif isinstance(error, sqlite3.OperationalError | sqlite3.DatabaseError):
        hint = "SQLite cannot use the file"
    else:
        return StoreError(f"{label}: {action} failed: {reason}")
    return StoreUnavailableError(f"{label}: {action} failed, {hint}: {reason}")
