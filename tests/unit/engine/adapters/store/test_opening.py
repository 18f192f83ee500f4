"""Opening a store: a new one is created, a bad one is refused clearly, an older one migrated."""

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection, text

from engine.adapters.store import schema
from engine.adapters.store.connection import default_store_url
from engine.adapters.store.sql import SqlStore
from engine.domain.kinds import KindEvent
from engine.domain.records import CheckpointRecord, OutcomeRecord
from engine.errors import SchemaVersionError, StoreError, StoreUnavailableError

CURRENT = schema.SCHEMA_VERSION  # type: ignore[attr-defined]
NEXT = CURRENT + 1  # a made-up next version, to test the migration machinery


def url_of(path: Path) -> str:
    return f"sqlite:///{path}"


def test_the_default_store_is_created_under_the_data_directory(tmp_path: Path) -> None:
    home = tmp_path / "home" / "thinkpath"
    with SqlStore(default_store_url(home)) as store:
        assert store.schema_version == schema.SCHEMA_VERSION  # type: ignore[attr-defined]
    assert (home / "store.sqlite3").is_file()
    with sqlite3.connect(home / "store.sqlite3") as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_a_missing_store_is_refused_when_it_may_not_be_created(tmp_path: Path) -> None:
    with pytest.raises(StoreUnavailableError, match=r"no store at .* does not exist"):
        SqlStore(url_of(tmp_path / "absent.sqlite3"), create=False)
    assert not (tmp_path / "absent.sqlite3").exists()


def test_a_corrupt_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "corrupt.sqlite3"
    path.write_bytes(b"this is not a database at all, only some text\n" * 100)
    with pytest.raises(StoreUnavailableError, match="corrupt or not a SQLite database"):
        SqlStore(url_of(path))
    assert path.read_bytes().startswith(b"this is not a database")


def test_a_foreign_database_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "foreign.sqlite3"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY)")
    with pytest.raises(StoreUnavailableError, match=r"not a ThinkPath store.*invoices"):
        SqlStore(url_of(path))
    with sqlite3.connect(path) as connection:
        tables = connection.execute("SELECT name FROM sqlite_master WHERE type='table'")
        assert [name for (name,) in tables] == ["invoices"]


def test_foreign_metadata_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    SqlStore(url_of(path)).close()
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE thinkpath_meta SET value = 'other' WHERE key = 'application'")
    with pytest.raises(StoreUnavailableError, match="metadata is foreign"):
        SqlStore(url_of(path))


def test_a_store_from_a_newer_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    SqlStore(url_of(path)).close()
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE thinkpath_meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(SchemaVersionError, match="schema version 99, written by a newer"):
        SqlStore(url_of(path))


def add_note_column(connection: Connection) -> None:
    connection.execute(text("ALTER TABLE outcomes ADD COLUMN note TEXT"))


def test_an_older_store_is_migrated_in_place(
    tmp_path: Path, records: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "store.sqlite3"
    with SqlStore(url_of(path)) as store:
        store.save_decision(records.decision("d1"))
        store.record_outcome(OutcomeRecord("d1", "checker", 1.0))
    monkeypatch.setattr(schema, "SCHEMA_VERSION", NEXT)
    monkeypatch.setitem(schema.MIGRATIONS, CURRENT, add_note_column)
    with SqlStore(url_of(path)) as store:
        assert store.schema_version == NEXT
        assert [o.reward for o in store.outcomes_since("default", 0)] == [1.0]
    with sqlite3.connect(path) as connection:
        columns = [row[1] for row in connection.execute("PRAGMA table_info(outcomes)")]
        version = connection.execute(
            "SELECT value FROM thinkpath_meta WHERE key = 'schema_version'"
        ).fetchone()
    assert "note" in columns
    assert version == (str(NEXT),)


# What each migration added, undone newest first: a store of version v lacks the steps of v and up.
UNDO = {
    4: (
        "ALTER TABLE decisions DROP COLUMN prompt_tokens",
        "ALTER TABLE decisions DROP COLUMN completion_tokens",
    ),
    3: ("ALTER TABLE decisions DROP COLUMN seconds",),
    2: ("DROP TABLE kind_events", "ALTER TABLE decisions DROP COLUMN kind"),
    1: ("DROP TABLE checkpoints",),
}


def store_of_version(path: Path, version: int, records: Any) -> None:
    """A store at `path` with one decision and its checker score, as schema `version` held it."""
    with SqlStore(url_of(path)) as store:
        store.save_decision(records.decision("d1"))
        store.record_outcome(OutcomeRecord("d1", "checker", 1.0))
    with sqlite3.connect(path) as connection:
        for step in sorted(UNDO, reverse=True):
            if step >= version:
                for statement in UNDO[step]:
                    connection.execute(statement)
        connection.execute(
            "UPDATE thinkpath_meta SET value = ? WHERE key = 'schema_version'", (str(version),)
        )


def test_a_version_1_store_gains_the_checkpoints_table(tmp_path: Path, records: Any) -> None:
    path = tmp_path / "store.sqlite3"
    store_of_version(path, 1, records)
    with SqlStore(url_of(path)) as store:
        assert store.schema_version == CURRENT
        store.save_checkpoint(CheckpointRecord("default", "f" * 16, 1, {"policies": {}}))
        latest = store.latest_checkpoint("default", "f" * 16)
    assert latest is not None
    assert latest.seq == 1


def test_a_version_2_store_gains_the_kind_log_and_keeps_its_decisions(
    tmp_path: Path, records: Any
) -> None:
    path = tmp_path / "store.sqlite3"
    store_of_version(path, 2, records)
    with SqlStore(url_of(path)) as store:
        assert store.schema_version == CURRENT
        assert store.get_decision("d1").kind is None
        assert [o.reward for o in store.outcomes_since("default", 0)] == [1.0]
        event = KindEvent("default", 1, "k1", "create", "discovered", None, (1.0, 0.0), "q")
        assert store.append_kind_event(event)
        assert store.kind_events_since("default", 0) == [event]


def test_a_version_3_store_gains_the_seconds_column_and_learns_as_before(
    tmp_path: Path, records: Any
) -> None:
    path = tmp_path / "store.sqlite3"
    store_of_version(path, 3, records)
    with SqlStore(url_of(path)) as store:
        assert store.schema_version == CURRENT
        [old] = store.outcomes_since("default", 0)
        assert (old.reward, old.seconds) == (1.0, None)  # made before: no seconds to charge
        timed = records.decision("d2", payload={"cost": {"calls": 1, "seconds": 2.5}})
        store.save_decision(timed)
        store.record_outcome(OutcomeRecord("d2", "checker", 0.0))
        assert [o.seconds for o in store.outcomes_of("d2")] == [2.5]


def test_a_version_4_store_gains_the_token_columns_and_learns_as_before(
    tmp_path: Path, records: Any
) -> None:
    path = tmp_path / "store.sqlite3"
    store_of_version(path, 4, records)
    with SqlStore(url_of(path)) as store:
        assert store.schema_version == CURRENT
        [old] = store.outcomes_since("default", 0)
        assert (old.reward, old.tokens) == (1.0, None)  # made before: its model is not priced
        cost = {"calls": 1, "seconds": 2.5, "prompt_tokens": 90, "completion_tokens": 12}
        store.save_decision(records.decision("d2", payload={"cost": cost}))
        store.record_outcome(OutcomeRecord("d2", "checker", 0.0))
        assert [o.tokens for o in store.outcomes_of("d2")] == [(90, 12)]


def failing_migration(connection: Connection) -> None:
    connection.execute(text("ALTER TABLE outcomes ADD COLUMN note TEXT"))
    raise StoreError("the migration broke half-way")


def test_a_failed_migration_leaves_the_store_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "store.sqlite3"
    SqlStore(url_of(path)).close()
    monkeypatch.setattr(schema, "SCHEMA_VERSION", NEXT)
    monkeypatch.setitem(schema.MIGRATIONS, CURRENT, failing_migration)
    with pytest.raises(StoreError, match="broke half-way"):
        SqlStore(url_of(path))
    monkeypatch.delitem(schema.MIGRATIONS, CURRENT)
    with pytest.raises(SchemaVersionError, match=f"no migration from schema version {CURRENT}"):
        SqlStore(url_of(path))
    with sqlite3.connect(path) as connection:
        columns = [row[1] for row in connection.execute("PRAGMA table_info(outcomes)")]
    assert "note" not in columns


def test_a_locked_store_is_a_clear_error_and_nothing_is_written(
    tmp_path: Path, records: Any
) -> None:
    path = tmp_path / "store.sqlite3"
    store = SqlStore(url_of(path), busy_timeout_s=0.2)
    store.save_decision(records.decision("d1"))
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StoreUnavailableError, match="holds the write lock"):
            store.record_outcome(OutcomeRecord("d1", "checker", 1.0))
        with pytest.raises(StoreUnavailableError, match="holds the write lock"):
            SqlStore(url_of(path), busy_timeout_s=0.2)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert store.outcomes_since("default", 0) == []
    assert store.record_outcome(OutcomeRecord("d1", "checker", 1.0)).seq == 1
    store.close()


def test_a_read_only_store_reads_but_refuses_writes_clearly(tmp_path: Path, records: Any) -> None:
    path = tmp_path / "store.sqlite3"
    with SqlStore(url_of(path)) as store:
        store.save_decision(records.decision("d1"))
        store.record_outcome(OutcomeRecord("d1", "checker", 1.0))
    # a read-only mount or file, as SQLite sees it (file modes do not stop root, who runs CI)
    with SqlStore(f"sqlite:///file:{path}?mode=ro&uri=true") as read_only:
        assert [o.reward for o in read_only.outcomes_since("default", 0)] == [1.0]
        with pytest.raises(StoreUnavailableError, match="read-only"):
            read_only.record_outcome(OutcomeRecord("d1", "user", 0.0))
        with pytest.raises(StoreUnavailableError, match="read-only"):
            read_only.save_decision(records.decision("d2"))
    with SqlStore(url_of(path)) as store:
        assert len(store.outcomes_since("default", 0)) == 1


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("sqlite://", "needs a file"),
        ("sqlite:///:memory:", "needs a file"),
        ("mysql://user@host/db", "unsupported database"),
        ("not a url", "not a database URL"),
    ],
)
def test_an_unusable_url_is_refused(url: str, message: str) -> None:
    with pytest.raises(StoreUnavailableError, match=message):
        SqlStore(url)


def test_a_directory_is_not_a_store(tmp_path: Path) -> None:
    with pytest.raises(StoreUnavailableError, match="is not a file"):
        SqlStore(url_of(tmp_path))


def test_an_unknown_durability_is_refused(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="durability must be"):
        SqlStore(url_of(tmp_path / "s.sqlite3"), durability="sometimes")  # type: ignore[arg-type]


def test_an_unreachable_server_is_a_clear_error() -> None:
    with pytest.raises(StoreUnavailableError, match="unreachable or refused"):
        SqlStore("postgresql+psycopg://postgres@127.0.0.1:1/test", busy_timeout_s=1)


@pytest.mark.postgres
def test_postgres_store_refuses_a_newer_schema(postgres_url: str) -> None:
    SqlStore(postgres_url).close()
    with SqlStore(postgres_url) as store, store._engines.writer.begin() as connection:
        connection.execute(
            text("UPDATE thinkpath_meta SET value = '7' WHERE key = 'schema_version'")
        )
    with pytest.raises(SchemaVersionError, match="schema version 7"):
        SqlStore(postgres_url)


def test_an_empty_database_is_not_made_a_store_when_it_may_not_be_created(
    tmp_path: Path,
) -> None:
    path = tmp_path / "empty.sqlite3"
    sqlite3.connect(path).close()
    with pytest.raises(StoreUnavailableError, match="no store there"):
        SqlStore(url_of(path), create=False)
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT count(*) FROM sqlite_master").fetchone() == (0,)
