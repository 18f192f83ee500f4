"""50 concurrent API clients against the live service: no error, nothing lost or doubled."""

from pathlib import Path

from experiments.benchmarks.service_load import run_load

REPORT = Path(__file__).resolve().parents[3] / "build" / "service-load.txt"


def test_fifty_clients_lose_nothing(service_url: str) -> None:
    report = run_load(service_url, clients=50, seconds=15)
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(report.summary() + "\n")
    print(report.summary())
    assert report.errors == []
    assert report.decisions >= 50  # every client finished at least one round
    assert report.stored_outcomes == report.outcomes  # every acknowledged outcome is stored
    assert report.counted_decisions == report.decisions  # and each decision counts once
