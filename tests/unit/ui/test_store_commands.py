"""`thinkpath store ...`: stats, rebuild, export and import from the command line."""

from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from engine.adapters.store.location import default_store_url
from engine.adapters.store.sql import SqlStore
from engine.domain.records import CheckpointRecord, OutcomeRecord
from tests.factories import decision_record
from ui.cli import main


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("THINKPATH_HOME", str(home))
    monkeypatch.delenv("THINKPATH_STORE_URL", raising=False)
    with SqlStore(default_store_url(home)) as store:
        for index, path in enumerate(["work_backwards", "first_principles", "work_backwards"]):
            store.save_decision(
                decision_record(
                    f"d{index}",
                    path=path,
                    tool=None,
                    context=None,
                    created_at=datetime(2026, 11, 30, 9, index, tzinfo=UTC),
                )
            )
            store.record_outcome(OutcomeRecord(f"d{index}", "checker", index / 2))
    return home


def test_stats_prints_each_arm(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["store", "stats"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split() == ["default", "path", "first_principles", "1.00", "0.500", "1"]
    assert lines[2].split() == ["default", "path", "work_backwards", "2.00", "0.500", "2"]


def test_rebuild_says_whether_the_statistics_agreed(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["store", "rebuild"]) == 0
    assert "agreed" in capsys.readouterr().out
    engine = create_engine(default_store_url(home))
    with engine.begin() as connection:
        connection.execute(text("UPDATE arm_statistics SET reward_sum = 9"))
    engine.dispose()
    assert main(["store", "rebuild"]) == 1
    assert "2 statistics differed and were replaced" in capsys.readouterr().out
    assert main(["store", "rebuild"]) == 0


def test_rebuild_drops_learner_checkpoints(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with SqlStore(default_store_url(home)) as store:
        store.save_checkpoint(CheckpointRecord("default", "config", 3, {"last_seq": 3}))
    assert main(["store", "rebuild"]) == 0
    assert "dropped 1 learner checkpoints" in capsys.readouterr().out
    with SqlStore(default_store_url(home)) as store:
        assert store.latest_checkpoint("default", "config") is None
        assert len(store.outcomes_since("default", 0)) == 3  # the log itself is untouched


def test_export_then_import_into_another_store(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "backup.jsonl"
    assert main(["store", "export", str(path)]) == 0
    assert "exported 0 arms, 3 decisions and 3 outcomes" in capsys.readouterr().out
    other = f"sqlite:///{tmp_path / 'other' / 'store.sqlite3'}"
    assert main(["store", "--url", other, "import", str(path)]) == 0
    assert "3 new of 3 decisions and 3 new of 3 outcomes" in capsys.readouterr().out
    assert main(["store", "--url", other, "import", str(path)]) == 0
    assert "0 new of 3 decisions and 0 new of 3 outcomes" in capsys.readouterr().out


def test_a_missing_store_is_an_error_not_a_new_empty_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("THINKPATH_STORE_URL", f"sqlite:///{tmp_path / 'nothing.sqlite3'}")
    assert main(["store", "rebuild"]) == 2
    assert "no store at" in capsys.readouterr().err
    assert not (tmp_path / "nothing.sqlite3").exists()
