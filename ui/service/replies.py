"""How the service's ASGI guards answer on their own (a JSON error, a page) and hand a body on."""

import json

from starlette.types import Message, Receive, Send

__all__ = ["error_body", "replaying", "send_json", "send_response"]


# The OpenAI error type (and code) of each status a guard answers with: the `/v1` endpoint's
# clients (the openai SDK, litellm) read `error`, the REST API's read `detail`; one body serves
# both.
OPENAI_ERRORS: dict[int, tuple[str, str | None]] = {
    400: ("invalid_request_error", None),
    401: ("authentication_error", "invalid_api_key"),
    403: ("permission_error", None),
    413: ("invalid_request_error", "request_too_large"),
    414: ("invalid_request_error", "url_too_long"),
    415: ("invalid_request_error", "unsupported_media_type"),
    422: ("invalid_request_error", None),
    429: ("rate_limit_error", "rate_limit_exceeded"),
}


def error_body(status: int, detail: object) -> bytes:
    """`{"detail": ..., "error": {...}}`: the REST API's shape and OpenAI's, side by side.

    >>> error_body(401, "missing API token")
    b'{"detail": "missing API token", "error": {"message": "missing API token", \
"type": "authentication_error", "param": null, "code": "invalid_api_key"}}'
    """
    fallback = ("server_error" if status >= 500 else "api_error", None)
    kind, code = OPENAI_ERRORS.get(status, fallback)
    message = _message_of(detail)
    error = {"message": message, "type": kind, "param": None, "code": code}
    return json.dumps({"detail": detail, "error": error}, ensure_ascii=True).encode()


def _message_of(detail: object) -> str:
    """One line from a detail: a text as it is, a list of validation problems joined."""
    if isinstance(detail, list):
        return "; ".join(
            str(item.get("msg", item)) if isinstance(item, dict) else str(item) for item in detail
        )
    return str(detail)


async def send_json(
    send: Send, status: int, detail: object, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    """Send `error_body(status, detail)`; the guards answer before the app sees the request."""
    await send_response(send, status, error_body(status, detail), b"application/json", headers)


async def send_response(
    send: Send,
    status: int,
    body: bytes,
    content_type: bytes,
    headers: list[tuple[bytes, bytes]] | None = None,
) -> None:
    """A whole response in the two ASGI messages, with its length and content type."""
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", content_type),
                (b"content-length", str(len(body)).encode()),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def replaying(body: bytes, receive: Receive) -> Receive:
    """A `receive` that gives the app the body a guard already read, then the real messages."""
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if replayed:
            return await receive()
        replayed = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay
