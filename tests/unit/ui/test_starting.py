"""The service answers while it loads: health says "starting", then the real app takes over."""

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from ui.service.starting import StartingApp


def real_app(events: list[str]) -> FastAPI:
    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        events.append("startup")  # what Gradio's mount relies on: the lifespan must reach it
        yield
        events.append("shutdown")

    app = FastAPI(lifespan=lifespan)

    @app.get("/api/v1/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    return app


class Server:
    """Drives an ASGI app on one event loop, as uvicorn does for the life of a server."""

    def __init__(self, app: StartingApp) -> None:
        self.app = app
        self.loop = asyncio.new_event_loop()

    def get(self, path: str) -> httpx.Response:
        return self.loop.run_until_complete(self._get(path))

    async def _get(self, path: str) -> httpx.Response:
        transport = httpx.ASGITransport(app=self.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return await client.get(path)

    def lifespan(self) -> list[str]:
        """The server's lifespan: start-up, then shut-down; what the app answered."""
        inbox = [{"type": "lifespan.shutdown"}, {"type": "lifespan.startup"}]
        sent: list[str] = []

        async def receive() -> dict[str, str]:
            return inbox.pop()

        async def send(message: Any) -> None:
            sent.append(message["type"])

        self.loop.run_until_complete(self.app({"type": "lifespan"}, receive, send))
        return sent


@pytest.fixture
def serve() -> Iterator[Any]:
    servers: list[Server] = []

    def start(app: StartingApp) -> Server:
        servers.append(Server(app))
        app.start()
        return servers[-1]

    yield start
    for server in servers:
        server.loop.close()


def test_health_says_starting_until_the_real_app_is_built(serve: Any) -> None:
    release = threading.Event()
    events: list[str] = []

    def build(report: Any) -> Any:
        report("the language model")
        release.wait(timeout=10)
        return real_app(events)

    app = StartingApp(build)
    server = serve(app)
    health = server.get("/api/v1/health")
    assert health.status_code == 503
    assert health.json()["status"] == "starting"
    assert health.json()["loading"] == "the language model"
    assert health.headers["retry-after"] == "2"
    page = server.get("/")
    assert page.status_code == 503
    assert "ThinkPath is starting" in page.text
    assert "the language model" in page.text
    assert server.get("/api/v1/arms").status_code == 503
    release.set()
    app._thread.join(timeout=10)
    ready = server.get("/api/v1/health")
    assert (ready.status_code, ready.json()) == (200, {"status": "ok"})
    server.get("/api/v1/health")
    assert events == ["startup"]  # the real app's start-up ran, once
    assert server.lifespan() == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
    assert events == ["startup", "shutdown"]  # and it stopped with the server


def test_a_failed_build_is_reported_and_stops_the_server(serve: Any) -> None:
    stopped: list[BaseException] = []

    def build(report: Any) -> Any:
        raise RuntimeError("no model at /nowhere\nsecond line")

    app = StartingApp(build, on_failure=stopped.append)
    server = serve(app)
    app._thread.join(timeout=10)
    health = server.get("/api/v1/health")
    assert health.status_code == 500
    assert health.json() == {"status": "failed", "error": "no model at /nowhere"}
    assert [str(error) for error in stopped] == ["no model at /nowhere\nsecond line"]
