"""Replicas on one PostgreSQL database: throughput with 1, 2 and 3, and a replica killed mid-load.

    python -m experiments.benchmarks.replicas [--seconds 20] [--clients 6] [--postgres URL]
        [--json results.json]

Starts three `thinkpath serve --scripted-model` processes (the stand-in model: the engine and the
store are measured, not a language model) on one fresh schema of the PostgreSQL database at
`--postgres` (default $THINKPATH_TEST_POSTGRES_URL, else postgresql+psycopg://postgres@127.0.0.1:
5432/test), sharing one THINKPATH_HOME for the search index. Then:

1. Throughput: `--clients` client threads, spread round-robin over the first 1, 2, then 3
   replicas, each looping "decide (with an expected answer), then post a user outcome", for
   `--seconds` each; decisions per second are reported.
2. Failure: the same load on all three, and `kill -9` of one replica half-way. Clients fail over
   to the others. Afterwards every acknowledged outcome must be in the log with its reward, and
   each surviving replica, after one refresh, must report the store's statistics arm for arm.

The run exits non-zero when a check fails. Traffic goes only to 127.0.0.1.
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from engine.adapters.store.sandbox import temporary_schema
from engine.adapters.store.sql import SqlStore
from engine.orchestration.learner import roles_taught_by
from experiments.benchmarks.serve_start import free_port

DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
QUERIES = (("What is 12 + 30?", "42"), ("What is 7 * 6?", "42"), ("What is 9 - 4?", "5"))
NAMESPACE = "default"
READER = "user:reader"  # the load's second opinion on each decision, beside the asker's claim


@dataclass
class Replica:
    port: int
    process: subprocess.Popen[str]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@dataclass
class Load:
    """What the clients saw: decisions made, outcomes acknowledged, errors and fail-overs."""

    seconds: float = 0.0
    decisions: int = 0
    acknowledged: dict[tuple[str, str], float] = field(default_factory=dict)  # -> reward
    errors: list[str] = field(default_factory=list)
    failovers: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def per_second(self) -> float:
        return self.decisions / self.seconds if self.seconds else 0.0


def start_replica(store_url: str, home: Path) -> Replica:
    port = free_port()
    environment = {
        **os.environ,
        "THINKPATH_HOME": str(home),
        "THINKPATH_STORE_URL": store_url,
        "THINKPATH_NAMESPACE": NAMESPACE,
    }
    process = subprocess.Popen(  # our own CLI, on loopback
        [sys.executable, "-m", "ui.cli", "serve", "--port", str(port), "--scripted-model"],
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    return Replica(port, process)


def wait_ready(replica: Replica, limit_s: float = 300.0) -> None:
    """Poll health until it says "ok" (200); fail if the process dies or time runs out."""
    deadline = time.monotonic() + limit_s
    with httpx.Client(timeout=2.0) as client:
        while time.monotonic() < deadline:
            if replica.process.poll() is not None:
                raise RuntimeError(f"replica on port {replica.port} exited")
            try:
                if client.get(f"{replica.url}/api/v1/health").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.2)
    raise RuntimeError(f"replica on port {replica.port} not ready after {limit_s:.0f} s")


@contextmanager
def replicas(store_url: str, count: int) -> Iterator[list[Replica]]:
    """`count` replicas on one store and one home; the first builds the index, then the rest."""
    started: list[Replica] = []
    with tempfile.TemporaryDirectory(prefix="thinkpath-replicas-") as home:
        try:
            started.append(start_replica(store_url, Path(home)))
            wait_ready(started[0])
            started.extend(start_replica(store_url, Path(home)) for _ in range(count - 1))
            for replica in started[1:]:
                wait_ready(replica)
            yield started
        finally:
            for replica in started:
                if replica.process.poll() is None:
                    replica.process.terminate()
            for replica in started:
                try:
                    replica.process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    replica.process.kill()
                    replica.process.wait()


def client(alive: list[Replica], first: int, stop: threading.Event, load: Load) -> None:
    """Decide then post a user outcome, until `stop`; on a dead replica, move to the next one."""
    turn = first
    with httpx.Client(timeout=30.0) as http:
        while not stop.is_set():
            targets = [replica for replica in alive if replica.process.poll() is None]
            if not targets:
                return
            replica = targets[turn % len(targets)]
            turn += 1
            query, answer = QUERIES[turn % len(QUERIES)]
            try:
                decided = http.post(
                    f"{replica.url}/api/v1/decisions",
                    json={"query": query, "expected_answer": answer, "answer_kind": "numeric"},
                )
                decided.raise_for_status()
                decision = decided.json()
                reward = float(turn % 2)
                # A second reader's score: the expected answer's check is already the asker's
                # own ("user"), which a different value would conflict with (409).
                posted = http.post(
                    f"{replica.url}/api/v1/decisions/{decision['id']}/outcomes",
                    json={"source": READER, "reward": reward},
                )
                posted.raise_for_status()
            except httpx.TransportError:
                with load.lock:
                    load.failovers += 1
                continue
            except httpx.HTTPStatusError as error:
                with load.lock:
                    load.errors.append(f"{error.response.status_code}: {error.response.text[:200]}")
                continue
            with load.lock:
                load.decisions += 1
                for outcome in decision["outcomes"]:
                    load.acknowledged[(decision["id"], outcome["source"])] = outcome["reward"]
                load.acknowledged[(decision["id"], READER)] = reward


def cpu_seconds(replicas_: list[Replica]) -> float:
    """User plus system CPU time the replicas' processes have used so far (Linux /proc)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for replica in replicas_:
        try:
            fields = Path(f"/proc/{replica.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:  # a killed replica: its time is gone with it
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
    return total


def run_load(
    targets: list[Replica], clients: int, seconds: float, kill: Replica | None = None
) -> Load:
    """`clients` threads over `targets` for `seconds`; `kill` gets SIGKILL half-way."""
    load, stop = Load(), threading.Event()
    threads = [
        threading.Thread(target=client, args=(targets, index, stop, load))
        for index in range(clients)
    ]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    if kill is not None:
        time.sleep(seconds / 2)
        os.kill(kill.process.pid, signal.SIGKILL)
        kill.process.wait()
        time.sleep(seconds / 2)
    else:
        time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join(timeout=60)
    load.seconds = time.perf_counter() - started
    return load


def check_after_kill(store_url: str, survivors: list[Replica], load: Load) -> dict[str, Any]:
    """No acknowledged outcome lost; every survivor, after one refresh, agrees with the store."""
    logged: dict[tuple[str, str], float] = {}
    # What a learner holds: per arm, the decisions with an outcome in force for it (one decision
    # counts once however many outcomes it has: engine.domain.evidence).
    taught: set[tuple[str, str, str]] = set()
    with SqlStore(store_url, create=False) as store:
        after = 0
        while batch := store.outcomes_since(NAMESPACE, after):
            for outcome in batch:
                logged[(outcome.decision_id, outcome.source)] = outcome.reward
                for role in roles_taught_by(outcome.source):
                    if role in outcome.choices:
                        taught.add((outcome.decision_id, role, outcome.choices[role]))
            after = batch[-1].seq
    expected = Counter((role, arm) for _decision, role, arm in taught)
    lost = [key for key, reward in load.acknowledged.items() if logged.get(key) != reward]
    # A client may post only its own sources: repeat a user's outcome.
    decision_id, source = next(key for key in load.acknowledged if key[1] == "user")
    views = []
    with httpx.Client(timeout=30.0) as http:
        for replica in survivors:
            # Posting a known outcome again changes nothing and makes the replica refresh once.
            http.post(
                f"{replica.url}/api/v1/decisions/{decision_id}/outcomes",
                json={"source": source, "reward": load.acknowledged[(decision_id, source)]},
            ).raise_for_status()
            arms = http.get(f"{replica.url}/api/v1/arms").json()
            views.append({(a["role"], a["arm_id"]): a["outcomes"] for a in arms if a["outcomes"]})
    return {
        "acknowledged_outcomes": len(load.acknowledged),
        "lost_outcomes": len(lost),
        "survivors_agree_with_store": all(view == dict(expected) for view in views),
        # where a survivor's counts differ from the store's, arm by arm (empty when they agree)
        "disagreements": [
            {
                f"{role}/{arm}": [view.get((role, arm)), expected.get((role, arm))]
                for role, arm in set(view) | set(expected)
                if view.get((role, arm)) != expected.get((role, arm))
            }
            for view in views
        ],
        "logged_outcomes": len(logged),
    }


def measure(url: str, seconds: float, clients: int) -> dict[str, Any]:
    results: dict[str, Any] = {"clients": clients, "seconds": seconds, "cpus": os.cpu_count()}
    with (
        temporary_schema(url, prefix="thinkpath_replicas") as store_url,
        replicas(store_url, 3) as started,
    ):
        for count in (1, 2, 3):
            cpu_before = cpu_seconds(started)
            load = run_load(started[:count], clients, seconds)
            cpu = cpu_seconds(started) - cpu_before
            results[f"decisions_per_second_{count}"] = round(load.per_second, 1)
            # CPU the replicas spent per decision, and how many of the machine's cores they kept
            # busy: near the core count, the replicas were starved of CPU, not of work.
            results[f"replica_cpu_ms_per_decision_{count}"] = round(
                1000 * cpu / max(load.decisions, 1), 1
            )
            results[f"replica_cores_busy_{count}"] = round(cpu / load.seconds, 2)
            results[f"errors_{count}"] = load.errors[:5]
        load = run_load(started, clients, seconds, kill=started[-1])
        results["kill"] = {
            "decisions_per_second": round(load.per_second, 1),
            "failovers": load.failovers,
            "errors": load.errors[:5],
            **check_after_kill(store_url, started[:-1], load),
        }
    one = results["decisions_per_second_1"]
    results["ratio_3_to_1"] = round(results["decisions_per_second_3"] / one, 2) if one else None
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="per load phase")
    parser.add_argument("--clients", type=int, default=6)
    parser.add_argument(
        "--postgres", default=os.environ.get("THINKPATH_TEST_POSTGRES_URL", DEFAULT_POSTGRES)
    )
    parser.add_argument("--json", type=Path, help="write the results here as JSON")
    args = parser.parse_args()
    results = measure(args.postgres, args.seconds, args.clients)
    print(json.dumps(results, indent=2))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    kill = results["kill"]
    if kill["lost_outcomes"] or not kill["survivors_agree_with_store"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
