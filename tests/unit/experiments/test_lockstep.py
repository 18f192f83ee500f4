"""Lockstep measurement: two checkouts' workers answer one line per line, in turn."""

import json
from pathlib import Path
from typing import Any

import pytest

from experiments.benchmarks import checkouts, overhead
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


class _ScriptedWorker:
    """A lockstep worker that answers query i with set seconds and logs who was asked when."""

    def __init__(self, side: str, seconds: dict[int, float], log: list[tuple[int, str]]) -> None:
        self.side, self.seconds, self.log = side, seconds, log
        self.closed = False

    def expect(self, text: str) -> None:
        assert text == "ready"

    def ask(self, line: str) -> str:
        index = int(line)
        self.log.append((index, self.side))
        wall = self.seconds[index]
        engines = ("memory", "sqlite", "reference")
        return json.dumps({engine: [wall, wall / 2] for engine in engines})

    def close(self) -> None:
        self.closed = True


def test_lockstep_alternates_sides_drops_the_warmup_and_divides_after_by_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A warm-up second that would dominate any median it slipped into, then known times:
    # "before" 2, 4, 6 ms, "after" 1, 2, 3 ms (median 4 and 2 ms: a ratio of 0.5).
    seconds = {
        "before": {0: 9.0, 1: 0.002, 2: 0.004, 3: 0.006},
        "after": {0: 9.0, 1: 0.001, 2: 0.002, 3: 0.003},
    }
    log: list[tuple[int, str]] = []
    started: dict[str, Any] = {}

    def start(path: Path, script: str, arguments: list[str]) -> _ScriptedWorker:
        side = "after" if path == HERE else "before"
        started[side] = (script, arguments)
        started[side + "_worker"] = worker = _ScriptedWorker(side, seconds[side], log)
        return worker

    monkeypatch.setattr(checkouts, "start_on", start)
    results = overhead.lockstep(Path("/elsewhere"), decisions=3, warmup=1)

    # Each worker serves the whole stream, warm-up included, from the overhead module itself.
    assert started["before"] == (overhead.__file__, ["--serve", "4"])
    assert started["after"] == (overhead.__file__, ["--serve", "4"])
    # One query each in turn, the side that goes first alternating.
    assert log == [
        (0, "before"), (0, "after"), (1, "after"), (1, "before"),
        (2, "before"), (2, "after"), (3, "after"), (3, "before"),
    ]  # fmt: skip
    for side, median_ms in (("before", 4.0), ("after", 2.0)):
        assert {engine: figures["median_ms"] for engine, figures in results[side].items()} == {
            "memory": median_ms,
            "sqlite": median_ms,
            "reference": median_ms,
        }
        assert results[side]["memory"]["cpu_median_ms"] == median_ms / 2
    assert results["after_over_before"] == {"memory": 0.5, "sqlite": 0.5, "reference": 0.5}
    assert started["before_worker"].closed
    assert started["after_worker"].closed


def test_a_lockstep_worker_times_each_engine_for_the_query_it_is_sent() -> None:
    # The real worker (`overhead.serve`): one JSON line of [wall, cpu] seconds per engine.
    worker = start_on(HERE, overhead.__file__, ["--serve", "2"])
    try:
        worker.expect("ready")
        timed = json.loads(worker.ask("1"))
    finally:
        worker.close()
    assert set(timed) == {"memory", "sqlite", "reference"}
    assert all(len(pair) == 2 and 0 < pair[0] < 60 and pair[1] >= 0 for pair in timed.values())
