"""The one way the service's ASGI guards answer on their own: a small JSON error body."""

import json

from starlette.types import Send

__all__ = ["send_json"]


async def send_json(
    send: Send, status: int, detail: object, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    """Send `{"detail": ...}` with `status`; the guards answer before the app sees the request."""
    body = json.dumps({"detail": detail}, ensure_ascii=True).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
