"""Export and import: the whole learning state round-trips through a JSON-lines file."""

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from engine.adapters.store.sql import SqlStore
from engine.domain.records import OutcomeRecord
from engine.errors import OutcomeConflictError, StoreError, UnknownDecisionError


def filled(store: SqlStore, records: Any) -> None:
    store.save_arm(records.arm("first_principles"))
    store.save_arm(
        records.arm(
            "detour_7",
            origin="detour",
            retired_at=datetime(2026, 12, 1, tzinfo=UTC),
            retired_reason="lost to its parent",
        )
    )
    for index in range(12):
        namespace = "default" if index % 3 else "other"
        store.save_decision(
            records.decision(f"d{index}", namespace=namespace, path=f"p{index % 4}")
        )
        store.record_outcome(
            OutcomeRecord(
                f"d{index}", "checker", (index % 5) / 4, created_at=records.decision("x").created_at
            )
        )
        if index % 2:
            store.record_outcome(OutcomeRecord(f"d{index}", "user", 0.5, weight=0.25))


def test_an_export_imports_into_an_empty_store_as_the_same_state(
    sql_store: SqlStore, records: Any, tmp_path: Path
) -> None:
    filled(sql_store, records)
    path = tmp_path / "state.jsonl"
    exported = sql_store.export_jsonl(path)
    assert (exported.arms, exported.decisions, exported.outcomes) == (2, 12, 18)
    header = json.loads(path.read_text().splitlines()[0])
    assert (header["kind"], header["format"]) == ("header", "thinkpath-store")
    with SqlStore(f"sqlite:///{tmp_path / 'copy.sqlite3'}") as copy:
        imported = copy.import_jsonl(path)
        assert (imported.new_decisions, imported.new_outcomes) == (12, 18)
        for namespace in ("default", "other"):
            assert copy.outcomes_since(namespace, 0) == sql_store.outcomes_since(namespace, 0)
            assert copy.list_arms(namespace) == sql_store.list_arms(namespace)
        assert copy.get_decision("d5") == sql_store.get_decision("d5")
        assert copy.arm_statistics() == sql_store.arm_statistics()
        again = copy.import_jsonl(path)
        assert (again.new_decisions, again.new_outcomes, again.outcomes) == (0, 0, 18)
        assert copy.rebuild_statistics().agrees


def test_a_malformed_line_is_named_and_nothing_is_imported(
    sqlite_store: SqlStore, records: Any, tmp_path: Path
) -> None:
    filled(sqlite_store, records)
    path = tmp_path / "state.jsonl"
    sqlite_store.export_jsonl(path)
    lines = path.read_text().splitlines()
    lines[-1] = lines[-1].replace('"reward"', '"rewrd"')
    path.write_text("\n".join(lines) + "\n")
    with SqlStore(f"sqlite:///{tmp_path / 'copy.sqlite3'}") as copy:
        with pytest.raises(StoreError, match=f"line {len(lines)} is not a valid record"):
            copy.import_jsonl(path)
        assert copy.list_arms("default") == []
        with pytest.raises(UnknownDecisionError):
            copy.get_decision("d1")


@pytest.mark.parametrize(
    ("first_line", "message"),
    [
        ('{"kind": "header", "format": "something-else"}', "not a ThinkPath store export"),
        ("garbage", "not a ThinkPath store export"),
        (
            '{"kind": "header", "format": "thinkpath-store", "format_version": 9}',
            "format version 9 is newer",
        ),
    ],
)
def test_a_foreign_or_newer_file_is_refused(
    sqlite_store: SqlStore, tmp_path: Path, first_line: str, message: str
) -> None:
    path = tmp_path / "state.jsonl"
    path.write_text(first_line + "\n")
    with pytest.raises(StoreError, match=message):
        sqlite_store.import_jsonl(path)


def test_a_file_that_conflicts_with_the_store_is_refused(
    sqlite_store: SqlStore, records: Any, tmp_path: Path
) -> None:
    filled(sqlite_store, records)
    path = tmp_path / "state.jsonl"
    sqlite_store.export_jsonl(path)
    with SqlStore(f"sqlite:///{tmp_path / 'copy.sqlite3'}") as copy:
        copy.save_decision(records.decision("d1", namespace="default", path="p1"))
        copy.record_outcome(OutcomeRecord("d1", "checker", 0.0))
        with pytest.raises(OutcomeConflictError, match="'d1' already has a 'checker'"):
            copy.import_jsonl(path)
        assert copy.list_arms("default") == []  # one transaction: nothing else came in
        with pytest.raises(UnknownDecisionError):
            copy.get_decision("d2")


def test_unreadable_and_unwritable_paths_are_clear_errors(
    sqlite_store: SqlStore, tmp_path: Path
) -> None:
    with pytest.raises(StoreError, match="cannot read the export"):
        sqlite_store.import_jsonl(tmp_path / "absent.jsonl")
    with pytest.raises(StoreError, match="cannot write the export"):
        sqlite_store.export_jsonl(tmp_path / "no" / "such" / "folder.jsonl")
