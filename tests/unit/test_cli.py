from importlib import metadata

import pytest

from ui.cli import main


def test_version_prints_the_installed_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["version"]) == 0
    assert capsys.readouterr().out.strip() == metadata.version("thinkpath")


def test_unknown_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["fly"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'fly'" in capsys.readouterr().err


def test_outcome_refuses_an_unknown_or_reserved_source(capsys: pytest.CaptureFixture[str]) -> None:
    # Refused before any engine or store is built: nothing is written anywhere.
    assert main(["outcome", "some-decision", "1.0", "--source", "bogus"]) == 1
    assert "user:<name>" in capsys.readouterr().err
    assert main(["outcome", "some-decision", "1.0", "--source", "checker"]) == 1
    assert "is reserved" in capsys.readouterr().err
