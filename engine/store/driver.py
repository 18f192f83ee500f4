"""Run the hot paths on the driver's own connection: SQL compiled once, no per-call compilation.

SQLAlchemy Core costs about a millisecond per recorded outcome on a busy two-core machine,
several times SQLite's own cost; the targets (2,000 durable outcomes per second per process,
under 1 ms per saved decision) leave no room for it. So the hot statements are compiled from the
SQLModel tables once, for the store's dialect, and executed on a pooled DBAPI connection. The
rest of the store, where speed does not matter, uses SQLAlchemy normally.
"""

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ClauseElement, DateTime, Engine


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


def timestamp_binder(engine: Engine) -> Callable[[Any], Any]:
    """How the dialect stores a timezone-aware timestamp (SQLite: text; psycopg: as is)."""
    process = DateTime(timezone=True).dialect_impl(engine.dialect).bind_processor(engine.dialect)
    return process if process is not None else (lambda value: value)


class RawWriter:
    """Hands out driver cursors inside a write transaction that commits or rolls back whole."""

    def __init__(self, engine: Engine, dialect: str) -> None:
        self._engine = engine
        # SQLite: take the write lock up front (see connection.py); PostgreSQL: psycopg opens a
        # transaction on the first statement and the namespace counter row does the locking.
        self._begin = "BEGIN IMMEDIATE" if dialect == "sqlite" else None

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """A cursor in a fresh transaction: committed on exit, rolled back on any exception."""
        connection = self._engine.raw_connection()
        try:
            cursor = connection.cursor()
            if self._begin:
                cursor.execute(self._begin)
            try:
                yield cursor
            except BaseException:
                connection.rollback()
                raise
            connection.commit()
        finally:
            connection.close()  # back to the pool
