import json
from importlib import metadata
from pathlib import Path

import pytest

from tests.unit.ui.conftest import scripted_engine
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


def test_ask_task_names_the_kind_of_query_and_a_bad_name_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    engine = scripted_engine(tmp_path)
    monkeypatch.setattr("engine.compose.build_engine", lambda *_args, **_kw: engine)
    assert main(["ask", "What is 6 * 7?", "--task", "sums", "--quiet", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["kind"]["id"] == "task:sums"
    assert main(["ask", "What is 6 * 7?", "--task", "sums", "--quiet"]) == 0
    assert "kind:     sums (the named task 'sums')" in capsys.readouterr().out
    assert main(["ask", "What is 6 * 7?", "--task", "Not A Slug", "--quiet"]) == 1
    assert "not a slug" in capsys.readouterr().err


def test_ask_option_bounds_the_answer_and_the_summary_says_which_was_chosen(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    engine = scripted_engine(tmp_path)
    monkeypatch.setattr("engine.compose.build_engine", lambda *_args, **_kw: engine)
    ask = ["ask", "Route this ticket: charged twice", "--option", "billing", "--option", "tech"]
    assert main([*ask, "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "answer:   billing" in out or "answer:   tech" in out
    assert 'note:     chose "' in out
    assert main(["ask", "Route this", "--option", "billing", "--quiet"]) == 1
    assert "give 2 to 26 options" in capsys.readouterr().err


def test_ask_expected_is_the_callers_claim_and_outcome_replace_corrects_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    engine = scripted_engine(tmp_path)  # one engine for both commands: one in-memory store
    monkeypatch.setattr("engine.compose.build_engine", lambda *_args, **_kw: engine)
    ask = ["ask", "What is 6 * 7?", "--expected", "43", "--source", "User:Ann", "--quiet"]
    assert main([*ask, "--json"]) == 0
    decision = json.loads(capsys.readouterr().out)
    assert [(o["source"], o["reward"]) for o in decision["outcomes"]] == [("user:ann", 0.0)]
    fix = ["outcome", decision["id"], "1", "--source", "user:ann", "--replace"]
    assert main(fix) == 0
    assert "corrected (revision 1): reward 1 from user:ann" in capsys.readouterr().out
    row = next(a for a in engine.arms() if a.arm_id == decision["path"]["arm_id"])
    assert (row.outcomes, row.mean_reward) == (1, 1.0)
    assert main(["ask", "What is 6 * 7?", "--source", "user:ann", "--quiet"]) == 1
    assert "--source names who gives --expected" in capsys.readouterr().err
