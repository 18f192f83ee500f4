"""The service's guards: loopback by default, a bearer token otherwise, bounded request bodies.

Why these defaults: the service runs a model and writes learning state, so an open port on a
shared network would let anyone spend compute and poison what was learned. Binding beyond
loopback is therefore refused until a token is configured, and then every API call must carry it.
"""

import ipaddress
import json
import secrets
from collections.abc import Awaitable, Callable

from fastapi import HTTPException, Request, status
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engine.errors import ConfigError

LOCAL_HOST_NAMES = frozenset({"localhost", "localhost.localdomain"})


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and the name localhost."""
    if host in LOCAL_HOST_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None) -> None:
    """Refuse to serve beyond loopback without a token."""
    if not is_loopback(host) and not token:
        raise ConfigError(
            f"refusing to listen on {host!r} without an API token: set THINKPATH_API_TOKEN "
            "(or pass --token) so that every API call must carry it, or bind to 127.0.0.1"
        )


def token_guard(expected: str | None) -> Callable[[Request], Awaitable[None]]:
    """A FastAPI dependency that demands `Authorization: Bearer <expected>` when a token is set."""

    async def guard(request: Request) -> None:
        if not expected:
            return
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        # compare_digest: the time taken must not reveal how much of the token matched
        if scheme.lower() != "bearer" or not secrets.compare_digest(
            given.encode(), expected.encode()
        ):
            raise HTTPException(
                status_code=status.HTTP_401_UNAUTHORIZED,
                detail="missing or wrong API token: send 'Authorization: Bearer <token>'",
                headers={"WWW-Authenticate": "Bearer"},
            )

    return guard


class BodySizeLimit:
    """ASGI middleware: answer 413 for a request body over `max_bytes`, declared or streamed."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._reject(send)
            return
        # Read the body up front, bounded: a body that streams past the limit is refused before
        # the app sees any of it (an exception raised mid-parse would come out as a 400 instead).
        chunks: list[bytes] = []
        received = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunks.append(message.get("body", b""))
            received += len(chunks[-1])
            if received > self.max_bytes:
                await self._reject(send)
                return
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": b"".join(chunks), "more_body": False}

        await self.app(scope, replay, send)

    async def _reject(self, send: Send) -> None:
        message = f"request body larger than {self.max_bytes} bytes"
        # `detail` for the REST API's clients, `error` in OpenAI's shape for the /v1 endpoint's.
        body = json.dumps(
            {
                "detail": message,
                "error": {
                    "message": message,
                    "type": "invalid_request_error",
                    "param": None,
                    "code": "request_too_large",
                },
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status.HTTP_413_CONTENT_TOO_LARGE,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
