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
