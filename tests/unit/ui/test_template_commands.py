"""`thinkpath templates list|retire` on the store under THINKPATH_HOME."""

from pathlib import Path

import pytest

from engine.compose import build_engine
from engine.settings import load_settings
from ui.cli import main


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("THINKPATH_HOME", str(tmp_path))
    monkeypatch.delenv("THINKPATH_STORE_URL", raising=False)
    return tmp_path


def test_retire_then_list_and_every_engine_on_the_store_sees_it(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["templates", "retire", "first_principles", "--reason", "too slow"]) == 0
    assert "retired first_principles (too slow)" in capsys.readouterr().out
    assert main(["templates", "list"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if "first_principles" in line)
    assert row.split()[1] == "retired"
    assert row.endswith("too slow")
    engine = build_engine(load_settings())  # another process on the same store
    retired = {a.arm_id for a in engine.arms() if a.role == "path" and a.retired}
    assert retired == {"first_principles"}


def test_unknown_template_or_missing_reason_is_a_clear_error(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["templates", "retire", "no-such", "--reason", "x"]) == 1
    assert "no path with the id 'no-such'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["templates", "retire", "first_principles"])
    assert "--reason" in capsys.readouterr().err
