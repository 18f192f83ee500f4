"""How long a fresh service takes to answer questions an exact tool reads whole, the first included.

    python -m experiments.benchmarks.exact_first [--repeats 2] [--before DIR] [--json FILE]

Each launch starts `python -m ui.cli serve --scripted-model` on a free loopback port, in a fresh
THINKPATH_HOME (its default SQLite store), waits for `/api/v1/health` to answer 200 (the service
says it is ready), and at once posts questions to `/api/v1/decisions`, one at a time, timing each
from the client's side (the request and its reply included), and the CPU time the service's
process spent meanwhile (every thread's, from /proc: on a shared machine the wall time also
counts the time other jobs held the cores):

- `first`: one question per exact tool, the units tool's first (the question of issue 40, which
  a fresh service on a busy two-core machine kept 25 s in its tool stage with no model call),
  then the calculator, a rate word problem (the calculator reads it with the units' libraries),
  the text tool and the number-list tool, each its tool's first question in the process;
- `later`: the same tools again, other numbers and wording, so nothing is reused.

The stand-in model answers at once, and an exact tool's answer makes no model call, so what is
timed is the service: the engine, the tool and whatever either loads on first use. Each
question's record says which tool answered, with what, and how many model calls it made (0
when the tool answered): a question that no tool read is timed as well, and says so.
`--before DIR` measures another checkout's code (the commit before a change) beside this one,
launch by launch, the first of each pair swapping every round (`serve_start.launch_order`), so
both meet the same machine; each launch records the load average at its start, and its
service's CPU time until health said ready (`cpu_at_ready_s`).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from experiments.benchmarks.serve_start import POLL_S, free_port, launch_order, stop

# (the tool meant to read it, the question, the answer it gives)
FIRST = [
    ("units", "How many minutes are in 3.5 hours?", "210"),
    ("calculator", "What is 17 * 23?", "391"),
    ("calculator", "Kim reads 20 pages a day. How many pages does she read in a week?", "140"),
    ("text", "How many letters are in the word banana?", "6"),
    ("numbers", "What is the next number: 2, 4, 6, 8?", "10"),
]
LATER = [
    ("units", "How many seconds are in 2.5 minutes?", "150"),
    ("calculator", "What is 46 * 12?", "552"),
    ("calculator", "Sam walks 3 miles a day. How many miles does he walk in a week?", "21"),
    ("text", "How many letters are in the word cherry?", "6"),
    ("numbers", "What is the next number: 5, 10, 15, 20?", "25"),
]
TARGET_S = 0.5  # issue 40: an exact tool's question answered in 0.5 s, its first time included


def cpu_seconds(pid: int) -> float:
    """The CPU seconds process `pid` has used so far, every thread's (Linux: /proc/PID/stat).

    Why beside wall time: on a shared machine, wall time also counts the time other jobs held
    the cores; CPU time says how much work the service did, whatever the load.
    """
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    user, system = int(fields[11]), int(fields[12])  # utime and stime, fields 14 and 15
    return (user + system) / os.sysconf("SC_CLK_TCK")


def ask(
    client: httpx.Client, base: str, pid: int, question: tuple[str, str, str]
) -> dict[str, Any]:
    """One decision over HTTP, timed from the client; which tool answered, and with what."""
    tool, query, expected = question
    cpu_started = cpu_seconds(pid)
    started = time.perf_counter()
    reply = client.post(f"{base}/api/v1/decisions", json={"query": query})
    seconds = time.perf_counter() - started
    cpu = cpu_seconds(pid) - cpu_started
    reply.raise_for_status()
    decision = reply.json()
    run = decision.get("tool_run") or {}
    answered_by = run.get("tool") if run.get("ok") else None
    answer = decision.get("answer") or ""
    return {
        "query": query,
        "meant_for": tool,
        "seconds": round(seconds, 4),
        "service_cpu_s": round(cpu, 2),  # the clock ticks at 10 ms
        "answered_by": answered_by,
        "right": expected in answer.replace(",", "").split(),
        "llm_calls": decision["cost"]["calls"],
        # Where the time went inside the engine: each stage that took 10 ms or more.
        "slow_stages": {
            step["stage"]: round(step["seconds"], 3)
            for step in decision["trace"]
            if step["seconds"] >= 0.01
        },
        "answer": answer[-80:],
    }


def launch(source: Path, home: Path, limit_s: float) -> dict[str, Any]:
    """Start one service, time its readiness and then every question, stop it."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    environment = {**os.environ, "THINKPATH_HOME": str(home), "PYTHONPATH": str(source)}
    command = [sys.executable, "-m", "ui.cli", "serve", "--port", str(port), "--scripted-model"]
    started = time.perf_counter()
    server = subprocess.Popen(  # our own service, on loopback, in a home of its own
        command, cwd=source, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        with httpx.Client(timeout=120.0) as client:
            ready_s = _wait_ready(client, base, server, started, limit_s)
            cpu_at_ready_s = cpu_seconds(server.pid)
            first = [ask(client, base, server.pid, question) for question in FIRST]
            later = [ask(client, base, server.pid, question) for question in LATER]
    finally:
        stop(server)
    return {
        "ready_s": round(ready_s, 2),
        "cpu_at_ready_s": round(cpu_at_ready_s, 2),
        "first": first,
        "later": later,
    }


def _wait_ready(
    client: httpx.Client,
    base: str,
    server: "subprocess.Popen[bytes]",
    started: float,
    limit_s: float,
) -> float:
    while time.perf_counter() - started < limit_s:
        if server.poll() is not None:
            error = server.stderr.read().decode(errors="replace") if server.stderr else ""
            raise RuntimeError(f"the server exited: {error[-2000:]}")
        try:
            if client.get(f"{base}/api/v1/health", timeout=1.0).status_code == 200:
                return time.perf_counter() - started
        except httpx.TransportError:
            pass
        time.sleep(POLL_S)
    raise RuntimeError(f"the server was not ready after {limit_s:g} s")


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians over launches: the first question, each tool's first, and the later ones."""
    firsts = [run["first"][0]["seconds"] for run in runs]
    slowest_first = [max(asked["seconds"] for asked in run["first"]) for run in runs]
    later = [asked["seconds"] for run in runs for asked in run["later"]]
    every = [asked for run in runs for asked in (*run["first"], *run["later"])]
    return {
        "launches": len(runs),
        "median_ready_s": round(statistics.median(run["ready_s"] for run in runs), 2),
        "median_cpu_at_ready_s": round(statistics.median(r["cpu_at_ready_s"] for r in runs), 2),
        "first_question_cpu_s": [run["first"][0]["service_cpu_s"] for run in runs],
        "first_question_s": firsts,
        "median_first_question_s": round(statistics.median(firsts), 3),
        "slowest_first_of_a_tool_s": slowest_first,
        "median_later_s": round(statistics.median(later), 3),
        "max_later_s": round(max(later), 3),
        "within_target": all(seconds <= TARGET_S for seconds in slowest_first),
        "read_by_the_tool_meant": sum(a["answered_by"] == a["meant_for"] for a in every),
        "right": sum(a["right"] for a in every),
        "questions": len(every),
        "llm_calls": sum(a["llm_calls"] for a in every),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2, help="fresh services per checkout")
    parser.add_argument("--source", type=Path, default=Path.cwd(), help="checkout to run")
    parser.add_argument("--before", type=Path, help="a checkout to measure beside --source")
    parser.add_argument("--limit-s", type=float, default=300.0, help="wait this long to be ready")
    parser.add_argument("--json", type=Path, help="write the results here as JSON")
    args = parser.parse_args(argv)
    sources = {"after": args.source.resolve()}
    if args.before is not None:
        sources = {"before": args.before.resolve(), **sources}
    runs: dict[str, list[dict[str, Any]]] = {label: [] for label in sources}
    with tempfile.TemporaryDirectory(prefix="thinkpath-exact-") as folder:
        for index, label in launch_order(list(sources), args.repeats):
            load = os.getloadavg()[0]
            run = launch(sources[label], Path(folder) / f"{label}-{index}", args.limit_s)
            runs[label].append({**run, "load_average": round(load, 2)})
            print(
                f"{label} {index}: ready {run['ready_s']} s, first question "
                f"{run['first'][0]['seconds']} s, load {load:.1f}",
                file=sys.stderr,
            )
    results: dict[str, Any] = {
        label: {"source": str(sources[label]), **summary(runs[label]), "runs": runs[label]}
        for label in sources
    }
    print(json.dumps(results, indent=2))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
