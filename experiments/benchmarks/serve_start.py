"""How long `thinkpath serve` takes until its health check answers, and until it is ready.

    python -m experiments.benchmarks.serve_start [--scripted-model] [--repeats 3]
        [--source DIR] [--before DIR] [--keep-home] [--bytecode-cache DIR] [--json results.json]

Each run starts `python -m ui.cli serve` on a free loopback port, in a fresh THINKPATH_HOME
(so the first run also builds the search index; `--keep-home` reuses one home for all runs),
and polls `/api/v1/health` every 50 ms. Two times are reported, from process start:
`answers_s`, the first HTTP answer of any status (the service is up and says whether it is
ready), and `ready_s`, the first 200 ("ok": the model, the index and the playground are loaded).
`--source DIR` runs another checkout's code (say, the commit before a change) with this
virtual environment. `--before DIR` measures that checkout beside `--source` in the same run:
with `--keep-home`, each gets its own home, warmed by one launch that is not counted (it builds
the search index), then the two alternate launch by launch, the first of each pair swapping
every round, so both see the same machine. Each run records the load average at its start.
`--bytecode-cache DIR` lets the servers keep compiled bytecode in DIR (`PYTHONPYCACHEPREFIX`,
and `PYTHONDONTWRITEBYTECODE` unset), as a normal install does beside its sources: without
it, a virtual environment installed without bytecode compiles every module at every start.
"""

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

POLL_S = 0.05


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def start_once(
    source: Path, home: Path, scripted: bool, limit_s: float, bytecode: Path | None = None
) -> dict[str, Any]:
    """Start one server, time its health check, stop it."""
    port = free_port()
    environment = {**os.environ, "THINKPATH_HOME": str(home), "PYTHONPATH": str(source)}
    if bytecode is not None:
        environment.pop("PYTHONDONTWRITEBYTECODE", None)
        environment["PYTHONPYCACHEPREFIX"] = str(bytecode)
    command = [sys.executable, "-m", "ui.cli", "serve", "--port", str(port)]
    if scripted:
        command.append("--scripted-model")
    started = time.perf_counter()
    server = subprocess.Popen(
        command,
        cwd=source,
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    answers_s = ready_s = None
    first_status: dict[str, Any] | None = None
    try:
        with httpx.Client(timeout=1.0) as client:
            while time.perf_counter() - started < limit_s and ready_s is None:
                if server.poll() is not None:
                    error = server.stderr.read() if server.stderr else ""
                    raise RuntimeError(f"the server exited: {error[-2000:]}")
                try:
                    reply = client.get(f"http://127.0.0.1:{port}/api/v1/health")
                except httpx.TransportError:
                    time.sleep(POLL_S)
                    continue
                now = time.perf_counter() - started
                if answers_s is None:
                    answers_s, first_status = now, {"code": reply.status_code, **reply.json()}
                if reply.status_code == 200:
                    ready_s = now
                else:
                    time.sleep(POLL_S)
    finally:
        stop(server)
    return {"answers_s": answers_s, "ready_s": ready_s, "first_answer": first_status}


def stop(server: "subprocess.Popen[Any]") -> None:
    """End a service started for a measurement: asked first, killed after 20 s."""
    server.terminate()
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
    if server.stderr:
        server.stderr.close()


def launch_order(labels: list[str], repeats: int) -> list[tuple[int, str]]:
    """(round, label) for every launch: each round runs every label once, and the label that
    goes first changes from round to round, so neither always follows the other.

    >>> launch_order(["before", "after"], 3)
    [(0, 'before'), (0, 'after'), (1, 'after'), (1, 'before'), (2, 'before'), (2, 'after')]
    """
    order: list[tuple[int, str]] = []
    for index in range(repeats):
        ordered = labels if index % 2 == 0 else list(reversed(labels))
        order.extend((index, label) for label in ordered)
    return order


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scripted-model", action="store_true", help="no language model")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--source", type=Path, default=Path.cwd(), help="checkout to run")
    parser.add_argument("--before", type=Path, help="a checkout to measure beside --source")
    parser.add_argument("--keep-home", action="store_true", help="one home for every run")
    parser.add_argument("--limit-s", type=float, default=180.0, help="give up after this long")
    parser.add_argument("--json", type=Path, help="write the results here as JSON")
    parser.add_argument(
        "--bytecode-cache", type=Path, help="keep the servers' compiled bytecode in this folder"
    )
    args = parser.parse_args()
    sources = (
        {"after": args.source}
        if args.before is None
        else {
            "before": args.before,
            "after": args.source,
        }
    )
    runs: dict[str, list[dict[str, Any]]] = {label: [] for label in sources}
    with tempfile.TemporaryDirectory(prefix="thinkpath-start-") as folder:

        def home_for(label: str, index: int) -> Path:
            return Path(folder) / (f"{label}-home" if args.keep_home else f"{label}-home-{index}")

        if args.keep_home and args.before is not None:
            for label, source in sources.items():  # builds each home's index; not counted
                start_once(
                    source,
                    home_for(label, -1),
                    args.scripted_model,
                    args.limit_s,
                    args.bytecode_cache,
                )
        for index, label in launch_order(list(sources), args.repeats):
            load = os.getloadavg()[0]
            run = start_once(
                sources[label],
                home_for(label, index),
                args.scripted_model,
                args.limit_s,
                args.bytecode_cache,
            )
            runs[label].append({**run, "load_average": load})
    results: dict[str, Any] = {
        "scripted_model": args.scripted_model,
        "bytecode_cache": args.bytecode_cache is not None,
    }
    for label, source in sources.items():
        results[label] = {
            "source": str(source),
            "runs": runs[label],
            "median_answers_s": _median([run["answers_s"] for run in runs[label]]),
            "median_ready_s": _median([run["ready_s"] for run in runs[label]]),
        }
    print(json.dumps(results, indent=2))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


def _median(values: list[float | None]) -> float | None:
    measured = [value for value in values if value is not None]
    return round(statistics.median(measured), 2) if measured else None


if __name__ == "__main__":
    main()
