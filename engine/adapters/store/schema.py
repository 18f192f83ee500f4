"""Create a new store, refuse a foreign or newer one, and migrate an older one in place.

Opening runs under the write lock (SQLite `BEGIN IMMEDIATE`, a PostgreSQL advisory lock), so
several processes that open one fresh store at once create it exactly once, and a migration runs
once, inside one transaction: it either completes or leaves the store as it was.
"""

import uuid
from collections.abc import Callable

from sqlalchemy import Connection, inspect, select, update

from engine.adapters.store.tables import (
    ALL_TABLES,
    APPLICATION,
    CHECKPOINTS,
    KIND_EVENTS,
    META,
    SCHEMA_VERSION,
)
from engine.errors import SchemaVersionError, StoreUnavailableError

Migration = Callable[[Connection], None]


def _add_checkpoints(connection: Connection) -> None:
    """1 -> 2: the checkpoints table (empty: the first refresh after the upgrade fills it)."""
    CHECKPOINTS.create(connection)


def _add_kinds(connection: Connection) -> None:
    """2 -> 3: the kind log, and each decision's kind (none for the decisions made before)."""
    KIND_EVENTS.create(connection)
    connection.exec_driver_sql("ALTER TABLE decisions ADD COLUMN kind VARCHAR(128)")


def _add_seconds(connection: Connection) -> None:
    """3 -> 4: each decision's model seconds (none for the decisions made before: their paths
    are charged by the decisions that come after)."""
    connection.exec_driver_sql("ALTER TABLE decisions ADD COLUMN seconds DOUBLE PRECISION")


def _add_tokens(connection: Connection) -> None:
    """4 -> 5: each decision's prompt and completion tokens (none for the decisions made
    before: their models are priced by the decisions that come after)."""
    connection.exec_driver_sql("ALTER TABLE decisions ADD COLUMN prompt_tokens INTEGER")
    connection.exec_driver_sql("ALTER TABLE decisions ADD COLUMN completion_tokens INTEGER")


# version -> the step that brings a store from that version to the next one. Version 1 is the
# first released schema; a change to the tables adds a step here and raises SCHEMA_VERSION.
MIGRATIONS: dict[int, Migration] = {
    1: _add_checkpoints,
    2: _add_kinds,
    3: _add_seconds,
    4: _add_tokens,
}


def prepare(connection: Connection, dialect: str, label: str, *, create: bool = True) -> int:
    """Make the database behind `connection` a current ThinkPath store; return its version.

    An empty database becomes a new store only when `create` is true.
    """
    if dialect == "postgresql":
        connection.exec_driver_sql(
            "SELECT pg_advisory_xact_lock(hashtext('thinkpath-store:' || current_schema()))"
        )
    names = set(inspect(connection).get_table_names())
    if META.name not in names:
        if names:
            raise StoreUnavailableError(
                f"{label}: not a ThinkPath store (it holds other tables: "
                f"{', '.join(sorted(names)[:5])}); point ThinkPath at an empty database, "
                "schema or file"
            )
        if not create:
            raise StoreUnavailableError(f"{label}: no store there (the database is empty)")
        _create(connection)
        return SCHEMA_VERSION
    meta = dict(connection.execute(select(META.c.key, META.c.value)).all())
    if meta.get("application") != APPLICATION or "schema_version" not in meta:
        raise StoreUnavailableError(f"{label}: not a ThinkPath store (its metadata is foreign)")
    version = int(meta["schema_version"])
    if version > SCHEMA_VERSION:
        raise SchemaVersionError(
            f"{label}: the store has schema version {version}, written by a newer ThinkPath; "
            f"this one reads up to version {SCHEMA_VERSION}. Upgrade ThinkPath to open it."
        )
    return migrate(connection, version)


def migrate(connection: Connection, version: int) -> int:
    """Apply every migration step from `version` up to the current schema version."""
    while version < SCHEMA_VERSION:
        step = MIGRATIONS.get(version)
        if step is None:
            raise SchemaVersionError(
                f"no migration from schema version {version} to {version + 1}; "
                "export the store with the ThinkPath that wrote it and import it here"
            )
        step(connection)
        version += 1
        connection.execute(
            update(META).where(META.c.key == "schema_version").values(value=str(version))
        )
    return version


def _create(connection: Connection) -> None:
    META.metadata.create_all(connection, tables=list(ALL_TABLES))
    connection.execute(
        META.insert(),
        [
            {"key": "application", "value": APPLICATION},
            {"key": "schema_version", "value": str(SCHEMA_VERSION)},
            {"key": "store_id", "value": uuid.uuid4().hex},
        ],
    )
