"""The decision-latency benchmark's bookkeeping, on the scripted stand-in model (no timing)."""

import re

import pytest

from engine.adapters.llm.scripted import ScriptedLLM, canned_script
from engine.adapters.memory_searcher import InMemorySearcher
from engine.adapters.store.memory import InMemoryStore
from engine.compose import build_engine
from engine.settings import load_settings
from experiments.benchmarks.decision_latency import (
    CONTENDERS,
    Timings,
    query_stream,
    run,
    summary,
)


def test_the_queries_are_one_new_family_with_right_answers() -> None:
    stream = query_stream(5, seed=3)
    assert len({query for query, _ in stream}) == 5
    for query, answer in stream:
        a, b = (int(x) for x in re.findall(r"\d+", query))
        assert answer == str(a + b)
    assert stream == query_stream(5, seed=3)


@pytest.mark.parametrize("workload", ["capitals", "addition"])
def test_before_rates_a_kinds_cold_decisions_and_after_never_does(workload: str) -> None:
    llm = ScriptedLLM(canned_script)
    engines = {
        name: build_engine(
            load_settings(store_url="memory", rate_cold_paths=rated, cold_pulls=50.0),
            llm=llm,
            store=InMemoryStore(),
            searcher=InMemorySearcher([]),
        )
        for name, rated in (("before", True), ("after", False))
    }
    timings = run(llm, engines, 4, checker=True, seed=0, workload=workload)
    assert timings["before"].kinds == ["first", "rated", "cached", "cached"]
    assert timings["after"].kinds[0] == "first"
    assert set(timings["after"].kinds[1:]) <= {"cold", "warm"}
    assert len(timings["bare"].total) == 4
    assert "rating" in timings["before"].stages
    assert "rating" not in timings["after"].stages


def test_a_second_kind_follows_the_stream_for_every_engine() -> None:
    llm = ScriptedLLM(canned_script)
    engines = {
        "after": build_engine(
            load_settings(store_url="memory"),
            llm=llm,
            store=InMemoryStore(),
            searcher=InMemorySearcher([]),
        )
    }
    timings = run(llm, engines, 3, checker=True, seed=0, workload="capitals", second_kind=2)
    assert len(timings["after"].total) == 3
    assert len(timings["after"].second_kind) == 2
    assert len(engines["after"].kinds()) == 2  # the authors are a kind of their own
    assert summary(timings)["after"]["second_kind_s"] == [
        round(t, 3) for t in timings["after"].second_kind
    ]


def test_the_summary_gives_ratios_to_the_bare_call_per_kind() -> None:
    timings = {name: Timings() for name in CONTENDERS}
    timings["bare"].total = [1.0, 2.0, 3.0]
    timings["before"] = Timings([10.0, 12.0, 14.0], {"rating": [8.0, 8.0, 8.0]}, ["rated"] * 3)
    timings["after"] = Timings(
        [10.0, 4.0, 6.0], {"rating": [8.0, 0.0, 0.0]}, ["rated", "cached", "cached"]
    )
    found = summary(timings)
    assert found["bare_median_s"] == 2.0
    assert found["before"]["all"]["median_x_bare"] == 6.0
    assert found["after"]["by_kind"]["cached"]["median_x_bare"] == 2.5
    assert found["after"]["by_kind"]["rated"]["n"] == 1
    assert found["before"]["stages"]["rating"]["median_x_bare"] == 4.0
    assert found["after"]["all"]["p90_s"] == pytest.approx(9.2)
