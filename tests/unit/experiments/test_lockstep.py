"""Lockstep measurement: two checkouts' workers answer one line per line, in turn."""

from pathlib import Path

import pytest

from experiments.benchmarks import overhead
from experiments.benchmarks.checkouts import HERE, start_on


def test_a_worker_answers_each_line_and_a_stopped_one_says_why(tmp_path: Path) -> None:
    script = tmp_path / "echo.py"
    script.write_text(
        "import sys\nprint('ready', flush=True)\n"
        "for line in sys.stdin:\n"
        "    if line.strip() == 'stop':\n"
        "        sys.exit('stopped on purpose')\n"
        "    print(line.strip().upper(), flush=True)\n"
    )
    worker = start_on(HERE, str(script), [])
    worker.expect("ready")
    assert worker.ask("one") == "ONE"
    with pytest.raises(RuntimeError, match="stopped on purpose"):
        worker.ask("stop")


def test_lockstep_times_every_engine_on_both_sides() -> None:
    results = overhead.lockstep(HERE, decisions=4, warmup=1)
    for side in ("before", "after"):
        assert set(results[side]) == {"memory", "sqlite", "reference"}
        assert all(figures["median_ms"] > 0 for figures in results[side].values())
    assert set(results["after_over_before"]) == {"memory", "sqlite", "reference"}
