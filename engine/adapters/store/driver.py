"""Run the hot paths on the driver's own connection: SQL compiled once, no per-call compilation.

SQLAlchemy Core costs about a millisecond per recorded outcome on a busy two-core machine,
several times SQLite's own cost; the targets (2,000 durable outcomes per second per process,
under 1 ms per saved decision) leave no room for it. So the hot statements are compiled from the
SQLModel tables once, for the store's dialect, and executed on a pooled DBAPI connection. The
rest of the store, where speed does not matter, uses SQLAlchemy normally.
"""

import os
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ClauseElement, DateTime, Engine
from sqlalchemy.sql.compiler import SQLCompiler


@dataclass(frozen=True)
class RawStatement:
    """SQL text in the driver's parameter style and the values of its constant parameters."""

    sql: str
    defaults: Mapping[str, Any]

    def bind(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The parameters to execute with: the constants overlaid with `values`."""
        return {**self.defaults, **values}


def compile_raw(statement: ClauseElement, engine: Engine) -> RawStatement:
    """Compile `statement` once for `engine`'s dialect."""
    compiled = statement.compile(dialect=engine.dialect)
    return RawStatement(compiled.string, dict(compiled.params))


@dataclass(frozen=True)
class PositionalStatement:
    """SQL text with positional parameters, and the names of those parameters in order."""

    sql: str
    names: tuple[str, ...]


def compile_positional(statement: ClauseElement, engine: Engine) -> PositionalStatement:
    """Compile `statement` with positional parameters: executemany then takes plain tuples,
    which the drivers bind faster than dicts (the bulk path's largest cost after the insert)."""
    dialect_type: Any = type(engine.dialect)
    style = "qmark" if engine.dialect.name == "sqlite" else "format"
    compiled = statement.compile(dialect=dialect_type(paramstyle=style))
    assert isinstance(compiled, SQLCompiler)
    return PositionalStatement(compiled.string, tuple(compiled.positiontup or ()))


def timestamp_binder(engine: Engine) -> Callable[[Any], Any]:
    """How the dialect stores a timezone-aware timestamp (SQLite: text; psycopg: as is)."""
    process = DateTime(timezone=True).dialect_impl(engine.dialect).bind_processor(engine.dialect)
    return process if process is not None else (lambda value: value)


class RawTransactions:
    """Hands out driver cursors inside a transaction that commits or rolls back whole.

    On SQLite each thread keeps its own connection (`per_thread=True`): checking one out of
    SQLAlchemy's pool and back costs about 60 us, a tenth of a recorded outcome. A connection is
    never shared between threads, nor used in a process forked from its creator.
    """

    def __init__(self, engine: Engine, begin: str | None, *, per_thread: bool = False) -> None:
        # SQLite: the connections are in autocommit mode (see connection.py), so `begin` opens
        # the transaction: "BEGIN IMMEDIATE" to write, None to read one statement on its own.
        # PostgreSQL: psycopg opens a transaction on the first statement; `begin` is None.
        self._engine = engine
        self._begin = begin
        self._per_thread = per_thread
        self._local = threading.local()
        self._kept: list[Any] = []  # every per-thread connection, to close them all in close()
        self._lock = threading.Lock()

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """A cursor in a fresh transaction: committed on exit, rolled back on any exception."""
        if self._per_thread:
            connection = self._thread_connection()
            yield from self._run(connection)
            return
        pooled = self._engine.raw_connection()
        try:
            yield from self._run(pooled)
        except BaseException:
            if getattr(pooled.dbapi_connection, "closed", False):
                pooled.invalidate()  # a broken server connection must not go back to the pool
            raise
        finally:
            pooled.close()  # back to the pool

    @contextmanager
    def reading(self) -> Iterator[Any]:
        """A cursor for reads each of which stands on its own (a statement reads one snapshot).

        On PostgreSQL in autocommit: in a transaction, psycopg sends BEGIN before the first
        statement and the store COMMIT after the last, three round trips for one read. SQLite's
        connections are in autocommit mode already.
        """
        if self._per_thread:
            with self.transaction() as cursor:
                yield cursor
            return
        with self.autocommitted() as cursor:
            yield cursor

    @contextmanager
    def autocommitted(self) -> Iterator[Any]:
        """A cursor whose every statement commits on its own: one round trip per statement.

        For a single statement that does a whole job atomically (PostgreSQL's one-statement
        outcome append): BEGIN and COMMIT would be two more round trips for nothing.
        """
        pooled = self._engine.raw_connection()
        connection: Any = pooled.dbapi_connection
        try:
            connection.autocommit = True
            cursor = connection.cursor()
            try:
                yield cursor
            finally:
                cursor.close()
        except BaseException:
            if getattr(connection, "closed", False):
                pooled.invalidate()
            raise
        finally:
            if not getattr(connection, "closed", False):
                connection.autocommit = False  # the pool's other users expect transactions
            pooled.close()

    def _run(self, connection: Any) -> Iterator[Any]:
        cursor = connection.cursor()
        try:
            if self._begin:
                cursor.execute(self._begin)
            yield cursor
            connection.commit()
        except BaseException:
            # A failed statement or COMMIT must not leave a transaction open on a connection
            # that is used again. The rollback's own failure (a dead connection) would only
            # hide the error that matters, which propagates.
            with suppress(Exception):
                connection.rollback()
            raise
        finally:
            cursor.close()

    def _thread_connection(self) -> Any:
        kept = getattr(self._local, "connection", None)
        if kept is not None and kept[0] == os.getpid():
            return kept[1]
        proxied = self._engine.raw_connection()
        proxied.detach()  # out of the pool: this thread owns it until close()
        with self._lock:
            self._kept.append(proxied)
        connection = proxied.dbapi_connection
        self._local.connection = (os.getpid(), connection)
        return connection

    def close(self) -> None:
        """Close the per-thread connections that this process opened."""
        with self._lock:
            kept, self._kept = self._kept, []
        for connection in kept:
            connection.close()
