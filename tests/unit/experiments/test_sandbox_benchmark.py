"""The sandbox benchmark reports a median per part and refuses a run count that measures nothing."""

import json

import pytest

from experiments.benchmarks import sandbox


def test_reports_a_median_per_part(capsys: pytest.CaptureFixture[str]) -> None:
    assert sandbox.main(["--runs", "1"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["runs"] == 1
    assert set(report["median_ms"]) == {"interpreter", "check", "sandbox"}
    assert all(value > 0 for value in report["median_ms"].values())


def test_refuses_zero_runs() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        sandbox.measure(0)
