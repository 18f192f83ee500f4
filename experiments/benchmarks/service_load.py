"""A bounded load check of a running ThinkPath service: concurrent clients decide and score.

    python -m experiments.benchmarks.service_load --url http://127.0.0.1:8765 --seconds 20

Each client loops: create a decision, then post a user outcome for it, until its time is up. The
check then reads the arm statistics back and verifies that every acknowledged outcome was counted
exactly once. Traffic goes only to the URL given (use a loopback address). Reports p50/p99
latency per request kind.
"""

import argparse
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import httpx
import numpy as np

QUERIES = ("What is 12 + 30?", "What is 7 * 6?", "First letter of 'banana'?", "Is 9 larger than 4?")


@dataclass
class LoadReport:
    clients: int
    seconds: float
    decisions: int = 0
    outcomes: int = 0  # acknowledged: the decisions' own (checker/referee) plus the user's
    errors: list[str] = field(default_factory=list)
    decide_latencies: list[float] = field(default_factory=list)
    outcome_latencies: list[float] = field(default_factory=list)
    stored_outcomes: int = 0  # what the decisions list afterwards: nothing lost, nothing doubled
    # Decisions the arm statistics count afterwards: one decision is one piece of evidence
    # however many outcomes it has (`engine.domain.evidence`), so this is `decisions`.
    counted_decisions: int = 0
    decision_ids: list[str] = field(default_factory=list)

    @property
    def lost_nothing(self) -> bool:
        """Every acknowledged outcome stored once, and every decision counted once."""
        return (
            not self.errors
            and self.stored_outcomes == self.outcomes
            and self.counted_decisions == self.decisions
        )

    def percentile(self, kind: str, q: float) -> float:
        values = self.decide_latencies if kind == "decide" else self.outcome_latencies
        return float(np.percentile(values, q)) if values else float("nan")

    def summary(self) -> str:
        return (
            f"{self.clients} clients for {self.seconds:.0f} s: {self.decisions} decisions, "
            f"{self.outcomes} outcomes acknowledged, {self.stored_outcomes} stored, "
            f"{self.counted_decisions} decisions counted, "
            f"{len(self.errors)} errors; decide p50 {self.percentile('decide', 50) * 1e3:.0f} ms "
            f"p99 {self.percentile('decide', 99) * 1e3:.0f} ms; outcome p50 "
            f"{self.percentile('outcome', 50) * 1e3:.0f} ms p99 "
            f"{self.percentile('outcome', 99) * 1e3:.0f} ms"
        )


def counted_decision_total(client: httpx.Client) -> int:
    """Decisions the engine has learned from, by the tool arms' counts.

    Every decision's outcome in force teaches the tool policy, and tool arms are never retired,
    so these counts sum to the decisions scored (a path arm may retire and close its count).
    """
    arms = client.get("/api/v1/arms").raise_for_status().json()
    return sum(arm["outcomes"] for arm in arms if arm["role"] == "tool")


def run_load(url: str, clients: int, seconds: float, token: str | None = None) -> LoadReport:
    """Run `clients` threads against `url` for `seconds`; never more than that, plus one request."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    report = LoadReport(clients=clients, seconds=seconds)
    lock = threading.Lock()
    with httpx.Client(base_url=url, headers=headers, timeout=120) as probe:
        before = counted_decision_total(probe)
    deadline = time.monotonic() + seconds

    def client_loop(number: int) -> None:
        with httpx.Client(base_url=url, headers=headers, timeout=120) as client:
            turn = 0
            while time.monotonic() < deadline:
                query = QUERIES[(number + turn) % len(QUERIES)]
                turn += 1
                try:
                    started = time.perf_counter()
                    decided = client.post("/api/v1/decisions", json={"query": query})
                    decide_seconds = time.perf_counter() - started
                    decided.raise_for_status()
                    decision = decided.json()
                    started = time.perf_counter()
                    scored = client.post(
                        f"/api/v1/decisions/{decision['id']}/outcomes",
                        json={"source": "user", "reward": turn % 2},
                    )
                    outcome_seconds = time.perf_counter() - started
                    scored.raise_for_status()
                except httpx.HTTPError as error:
                    with lock:
                        report.errors.append(f"client {number}: {error!r}")
                    continue
                with lock:
                    report.decisions += 1
                    report.decision_ids.append(decision["id"])
                    report.outcomes += len(decision["outcomes"]) + int(scored.json()["applied"])
                    report.decide_latencies.append(decide_seconds)
                    report.outcome_latencies.append(outcome_seconds)

    threads = [threading.Thread(target=client_loop, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with httpx.Client(base_url=url, headers=headers, timeout=120) as probe:
        report.counted_decisions = counted_decision_total(probe) - before
        report.stored_outcomes = sum(
            len(probe.get(f"/api/v1/decisions/{id_}").raise_for_status().json()["outcomes"])
            for id_ in report.decision_ids
        )
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8765")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--token")
    args = parser.parse_args(argv)
    report = run_load(args.url, args.clients, args.seconds, args.token)
    print(report.summary())
    return 0 if report.lost_nothing else 1


if __name__ == "__main__":
    raise SystemExit(main())
