"""What the OpenAI-compatible endpoint adds over `engine.decide`, on the scripted stand-in model.

    python -m experiments.benchmarks.openai_endpoint --rounds 200

`thinkpath serve --scripted-model` runs on a free loopback port (a real uvicorn server, started
here unless `--url` names one), and the same build of the engine (SQLite store, local index,
scripted model) runs in this process; the two are measured round after round, interleaved and
alternating which goes first, so both see the same machine load:

- **Added latency.** Each plain `POST /v1/chat/completions` is timed at the client, and the
  endpoint reports how long the `engine.decide` inside that very request took (the
  `x-thinkpath-decide-ms` header); the difference is what the endpoint adds (HTTP over loopback,
  validation, the thread-pool hop, JSON), paired per request so that the decision's own variance
  (which path, whether a rating call ran) cancels out. `engine.decide` called directly is shown
  beside it.
- **Time to first token.** A streaming request, from sending it to the first content chunk,
  beside `engine.decide` with a listener, from the call to its first `on_token`.

Traffic goes only to the loopback URL. This module does not import `ui/` (experiments sit beside
it): the server is the `thinkpath serve` command in a child process.
"""

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from engine.domain.models import TraceStep
from engine.errors import ConfigError
from engine.orchestration.facade import Engine

STARTUP_LIMIT_S = 300  # gradio's import alone takes tens of seconds on a busy 2-core machine
DECIDE_MS_HEADER = "x-thinkpath-decide-ms"  # ui.service.openai_compat's, read as the wire gives it
QUERY = "What is 6 * 7?"
BODY = {"model": "thinkpath", "messages": [{"role": "user", "content": QUERY}]}


@dataclass(frozen=True)
class EndpointLatency:
    """Milliseconds per round, side by side from one run."""

    decide_ms: list[float]  # engine.decide called directly
    request_ms: list[float]  # the same engine through POST /v1/chat/completions, at the client
    added_ms: list[float]  # per request: client time minus the decide inside it
    engine_first_token_ms: list[float]  # decide with a listener: call to first on_token
    stream_first_token_ms: list[float]  # streaming request: sent to first content chunk

    def summary(self) -> str:
        rows = [
            ("engine.decide (direct)", self.decide_ms),
            ("POST /v1/chat/completions", self.request_ms),
            ("added by the endpoint (paired)", self.added_ms),
            ("first token, engine listener", self.engine_first_token_ms),
            ("first token, /v1 stream", self.stream_first_token_ms),
        ]
        lines = [f"{'measure':34} {'median ms':>10} {'p99 ms':>10} {'n':>5}"]
        lines += [
            f"{name:34} {statistics.median(values):10.2f} {percentile(values, 99):10.2f} "
            f"{len(values):5d}"
            for name, values in rows
        ]
        return "\n".join(lines)


def percentile(values: list[float], q: float) -> float:
    """The `q`th percentile, nearest rank: an observed value, never an interpolation.

    >>> percentile([float(v) for v in range(1, 101)], 99)
    99.0
    """
    ranked = sorted(values)
    rank = max(1, -(-len(ranked) * q // 100))  # ceil without floats
    return ranked[int(rank) - 1]


class FirstToken:
    """A listener that notes when the first answer token arrives."""

    def __init__(self) -> None:
        self.at: float | None = None

    def on_stage(self, step: TraceStep) -> None:
        pass

    def on_token(self, text: str) -> None:
        if self.at is None and text.strip():
            self.at = time.perf_counter()


def measure(engine: Engine, url: str, rounds: int) -> EndpointLatency:
    """Time `rounds` rounds of each measure: `engine` here, the service at `url`."""
    if rounds < 2:
        raise ConfigError(f"rounds must be at least 2, got {rounds}")
    decide_ms: list[float] = []
    request_ms: list[float] = []
    added_ms: list[float] = []
    engine_first: list[float] = []
    stream_first: list[float] = []
    with httpx.Client(base_url=url, timeout=60) as client:
        for _ in range(3):  # imports, the index, the first SQLite writes, on both sides
            engine.decide(QUERY)
            client.post("/v1/chat/completions", json=BODY).raise_for_status()
        for round_index in range(rounds):
            steps: list[Callable[[], None]] = [
                lambda: decide_ms.append(_direct(engine)),
                lambda: request_ms.append(_request(client, added_ms)),
                lambda: engine_first.append(_engine_first_token(engine)),
                lambda: stream_first.append(_stream_first_token(client)),
            ]
            if round_index % 2:
                steps.reverse()
            for step in steps:
                step()
    return EndpointLatency(decide_ms, request_ms, added_ms, engine_first, stream_first)


def _direct(engine: Engine) -> float:
    started = time.perf_counter()
    engine.decide(QUERY)
    return (time.perf_counter() - started) * 1000


def _request(client: httpx.Client, added_ms: list[float]) -> float:
    started = time.perf_counter()
    response = client.post("/v1/chat/completions", json=BODY)
    elapsed_ms = (time.perf_counter() - started) * 1000
    response.raise_for_status()
    added_ms.append(elapsed_ms - float(response.headers[DECIDE_MS_HEADER]))
    return elapsed_ms


def _engine_first_token(engine: Engine) -> float:
    listener = FirstToken()
    started = time.perf_counter()
    engine.decide(QUERY, listener=listener)
    if listener.at is None:
        raise RuntimeError("the engine streamed no answer token")
    return (listener.at - started) * 1000


def _stream_first_token(client: httpx.Client) -> float:
    first: float | None = None
    started = time.perf_counter()
    with client.stream("POST", "/v1/chat/completions", json={**BODY, "stream": True}) as reply:
        reply.raise_for_status()
        for line in reply.iter_lines():
            if first is None and '"content":"' in line and '"content":""' not in line:
                first = time.perf_counter()
    if first is None:
        raise RuntimeError("the stream carried no content chunk")
    return (first - started) * 1000


@contextmanager
def serve_stand_in(home: Path) -> Iterator[str]:
    """`thinkpath serve --scripted-model` in a child process on a free loopback port."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    environment = {**os.environ, "THINKPATH_HOME": str(home), "GRADIO_ANALYTICS_ENABLED": "False"}
    command = [sys.executable, "-m", "ui.cli", "serve", "--scripted-model", "--port", str(port)]
    with (home / "serve.log").open("w") as log:
        process = subprocess.Popen(command, env=environment, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + STARTUP_LIMIT_S
            while not _healthy(url):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"thinkpath serve did not start; see {home / 'serve.log'}")
                time.sleep(0.5)
            yield url
        finally:
            process.terminate()
            process.wait(timeout=30)


def _healthy(url: str) -> bool:
    try:
        return httpx.get(f"{url}/api/v1/health", timeout=2).status_code == 200
    except httpx.TransportError:
        return False


def build_stand_in(home: Path) -> Engine:
    """The engine `thinkpath serve --scripted-model` builds, with its data in `home`."""
    from engine.adapters.llm.scripted import ScriptedLLM, canned_script  # noqa: PLC0415
    from engine.compose import build_engine  # noqa: PLC0415
    from engine.settings import Settings  # noqa: PLC0415

    return build_engine(Settings(home=home), llm=ScriptedLLM(canned_script))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=200, help="rounds of each measure")
    parser.add_argument("--url", help="a running scripted service (default: start one here)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="thinkpath-openai-bench-") as folder:
        home = Path(folder)
        (home / "server").mkdir()
        (home / "direct").mkdir()
        engine = build_stand_in(home / "direct")
        if args.url:
            result = measure(engine, args.url, args.rounds)
        else:
            with serve_stand_in(home / "server") as url:
                result = measure(engine, url, args.rounds)
    print(result.summary())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
