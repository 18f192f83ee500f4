"""Serve at once, load in the background: the service answers while its model and index load.

Building the whole service takes tens of seconds: litellm and gradio imports, the local model,
the embedder and the search index. A load balancer or an operator polling the health check
should not see a dead port meanwhile. `StartingApp` is an ASGI app that is up the moment the
server is: until the real app is built (on a background thread), `/api/v1/health` answers
503 with `"status": "starting"` and what is still loading, the page at `/` says that the
service is starting and reloads itself, and every other path answers 503 with `Retry-After`.
Then every request goes to the real app, whose lifespan (Gradio's start-up) is run first.

If the build fails, health answers 500 with `"status": "failed"` and the reason, and
`on_failure` is called (`thinkpath serve` stops the server and exits non-zero).

This app does no checking of its own: `thinkpath serve` wraps it in the service's guards
(`ui.service.guard_stack`), so the Host allow-list, the token, the body limits and strict JSON
hold while it starts, and the failure's reason (a path, a model name) reaches only a caller
who holds the token.
"""

import asyncio
import json
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from importlib import metadata
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

HEALTH_PATH = "/api/v1/health"
RETRY_AFTER_S = 2

STARTING_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="2">
<title>ThinkPath is starting</title></head>
<body style="font-family: sans-serif; margin: 3em">
<h1>ThinkPath is starting</h1>
<p>Loading: {loading}. This page reloads itself until the playground is ready
({seconds:.0f} s so far).</p></body></html>
"""


class StartingApp:
    """An ASGI app that answers while `build()` makes the real one on a background thread.

    `build(report)` returns the real ASGI app; it calls `report("the language model")` and so on
    as it goes, so that health can say what it is waiting for.
    """

    def __init__(
        self,
        build: Callable[[Callable[[str], None]], ASGIApp],
        *,
        on_failure: Callable[[BaseException], None] | None = None,
    ) -> None:
        self._build = build
        self._on_failure = on_failure
        self._started = time.monotonic()
        self._loading = "the service"
        self._built: ASGIApp | None = None
        self._ready: ASGIApp | None = None
        self._error: BaseException | None = None
        self._lock = asyncio.Lock()
        self._lifespan_done: asyncio.Future[None] | None = None
        self._lifespan_inbox: asyncio.Queue[Message] = asyncio.Queue()
        self._lifespan_task: asyncio.Task[None] | None = None
        self._thread = threading.Thread(target=self._run_build, name="thinkpath-start", daemon=True)

    def start(self) -> None:
        """Begin building the real app (call once, before serving)."""
        self._thread.start()

    @property
    def ready(self) -> bool:
        return self._ready is not None

    def _report(self, what: str) -> None:
        self._loading = what

    def _run_build(self) -> None:
        try:
            self._built = self._build(self._report)
        except Exception as error:  # reported on health, then the server stops
            self._fail(error)

    def _fail(self, error: BaseException) -> None:
        self._error = error
        if self._on_failure is not None:
            self._on_failure(error)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        app = self._ready or await self._adopt()
        if app is not None:
            await app(scope, receive, send)
            return
        if scope["type"] != "http":  # a websocket before the playground exists
            await send({"type": "websocket.close", "code": 1013})
            return
        await self._answer_starting(scope, send)

    async def _adopt(self) -> ASGIApp | None:
        """Once the build is done, start the real app's lifespan, then hand requests to it."""
        if self._built is None:
            return None
        async with self._lock:
            if self._ready is None and self._error is None:
                await self._start_lifespan(self._built)
                if self._error is None:
                    self._ready = self._built
        return self._ready

    async def _start_lifespan(self, app: ASGIApp) -> None:
        """Send the real app its start-up event; shut-down follows when the server stops."""
        inbox: asyncio.Queue[Message] = asyncio.Queue()
        started: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._lifespan_done = asyncio.get_running_loop().create_future()
        self._lifespan_inbox = inbox

        async def send(message: Message) -> None:
            kind = message["type"]
            if kind == "lifespan.startup.failed":
                self._fail(RuntimeError(message.get("message") or "the app's start-up failed"))
            if kind.startswith("lifespan.startup") and not started.done():
                started.set_result(None)
            elif kind.startswith("lifespan.shutdown") and self._lifespan_done is not None:
                self._lifespan_done.set_result(None)

        async def run() -> None:
            try:
                await app({"type": "lifespan", "asgi": {"version": "3.0"}}, inbox.get, send)
            except Exception as error:  # the real app's own start-up failed: reported
                self._fail(error)
            finally:
                for future in (started, self._lifespan_done):
                    if future is not None and not future.done():
                        future.set_result(None)

        self._lifespan_task = asyncio.get_running_loop().create_task(run())
        await inbox.put({"type": "lifespan.startup"})
        await started

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        """The server's own lifespan: nothing to start; on shut-down, stop the real app too."""
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self._lifespan_done is not None:
                    await self._lifespan_inbox.put({"type": "lifespan.shutdown"})
                    await self._lifespan_done
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _answer_starting(self, scope: Scope, send: Send) -> None:
        seconds = time.monotonic() - self._started
        path = scope.get("path", "")
        body: dict[str, object]
        if self._error is not None:
            code, body = 500, {"status": "failed", "error": _reason(self._error)}
            await _send(send, code, "application/json", json.dumps(body).encode())
            return
        if path == HEALTH_PATH:
            body = {
                "status": "starting",
                "version": metadata.version("thinkpath"),
                "loading": self._loading,
                "seconds": round(seconds, 1),
            }
            await _send(send, 503, "application/json", json.dumps(body).encode())
        elif path in ("", "/"):
            page = STARTING_PAGE.format(loading=self._loading, seconds=seconds)
            await _send(send, 503, "text/html; charset=utf-8", page.encode())
        else:
            body = {"detail": f"ThinkPath is starting (loading {self._loading}); retry shortly"}
            await _send(send, 503, "application/json", json.dumps(body).encode())


async def _send(send: Send, status: int, content_type: str, body: bytes) -> None:
    headers = [
        (b"content-type", content_type.encode()),
        (b"content-length", str(len(body)).encode()),
        (b"retry-after", str(RETRY_AFTER_S).encode()),
        (b"cache-control", b"no-store"),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _reason(error: BaseException) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
