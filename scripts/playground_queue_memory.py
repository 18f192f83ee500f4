"""The service's memory over N playground calls whose results are never read, with and without
the queue's fair share and expiry (`ui.service.queue_guard`).

    PYTHONPATH=$PWD .venv/bin/python scripts/playground_queue_memory.py [--calls 600] [--mode both]

(A script, not a benchmark under `experiments/`: it drives `ui/`, which `experiments/` may not
import.)

Each mode runs in a fresh process: the service of the unit tests (a real engine on the scripted
model, the playground mounted), called in-process through its HTTP API by one client that sends
`POST /gradio_api/call/show` (the Arms tab: table and two plots) N times and reads nothing, then
waits until the queue is idle. `lifted` sets the share and the capacity to N (Gradio's queue as it
was: every call is taken, and its result kept); `guarded` keeps the shipped limits and lets a
minute pass (a stepped clock) after every `per_client` calls, so unread ones expire as they
would. The resident set size (VmRSS) is read after one call read to the end (the plotting
libraries load on the first draw) and again once the queue is idle.
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ui.service.queue_guard import QueueLimits

BEARER = {"Authorization": "Bearer " + "memory-bench-token-0123456789"}


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def run_one(mode: str, calls: int) -> dict[str, object]:
    from fastapi.testclient import TestClient  # noqa: PLC0415 - heavy: in the child only

    from tests.unit.ui.conftest import scripted_engine  # noqa: PLC0415
    from ui.service.app import create_app  # noqa: PLC0415

    limits = QueueLimits(per_client=calls, capacity=calls) if mode == "lifted" else QueueLimits()
    now = [0.0]
    with tempfile.TemporaryDirectory() as home:
        app = create_app(
            scripted_engine(Path(home)), token=BEARER["Authorization"][7:], queue_limits=limits
        )
        book = app.state.playground_queue
        book.clock = lambda: now[0]
        with TestClient(app, base_url="http://localhost") as client:
            # One call read to the end first: the plotting libraries load on the first draw,
            # and that is no part of what unread calls cost.
            warm = client.post("/gradio_api/call/show", json={"data": ["", ""]}, headers=BEARER)
            client.get(f"/gradio_api/call/show/{warm.json()['event_id']}", headers=BEARER)
            before = rss_mb()
            statuses: dict[int, int] = {}
            for call in range(calls):
                if mode == "guarded" and call and call % limits.per_client == 0:
                    now[0] += limits.unread_after_s + 1
                answer = client.post(
                    "/gradio_api/call/show", json={"data": ["", ""]}, headers=BEARER
                )
                statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1
            queue = app.state.playground._queue
            while len(queue) or any(queue.active_jobs):
                time.sleep(0.2)
            after = rss_mb()
            held_sessions = len(queue.pending_messages_per_session)
    return {
        "mode": mode,
        "calls": calls,
        "statuses": statuses,
        "rss_before_mb": round(before, 1),
        "rss_after_mb": round(after, 1),
        "growth_mb": round(after - before, 1),
        "sessions_held": held_sessions,
        "expired": book.expired,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=600)
    parser.add_argument("--mode", choices=["lifted", "guarded", "both"], default="both")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_one(args.mode, args.calls)))
        return
    for mode in ["lifted", "guarded"] if args.mode == "both" else [args.mode]:
        command = [sys.executable, __file__, "--child", "--mode", mode]
        done = subprocess.run(
            [*command, "--calls", str(args.calls)], capture_output=True, text=True, check=True
        )
        print(done.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
