"""Strict JSON at the edge: non-finite numbers and invalid Unicode are a 422, never a 500.

Python's `json` reads `NaN`, `Infinity` and `1e400` (as inf) and keeps lone surrogates such as
`"\\ud800"` in strings; none of them is JSON (RFC 8259), and each one used to reach a handler that
could not serialise it back, or a store that could not encode it: a 500. `StrictJson` checks
every JSON request body on every route before the app parses it, and `validation_error` answers
pydantic's complaints without echoing inputs that cannot be written as JSON.
"""

import json
import math
from collections.abc import Sequence
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from ui.service.replies import replaying, send_json

__all__ = ["InvalidJsonError", "StrictJson", "check_json", "validation_error"]

# A float has about 308 decimal digits of range: an integer longer than this is no JSON number
# any reader can keep (and a very long one costs quadratic time to convert).
MAX_INT_DIGITS = 309


class InvalidJsonError(ValueError):
    """A body that is not strict JSON; the message says where and why."""


def check_json(body: bytes) -> Any:
    """Parse `body` as strict JSON, or raise `InvalidJsonError` naming the problem.

    >>> check_json(b'{"reward": 0.5}')
    {'reward': 0.5}
    >>> check_json(b'{"reward": NaN}')
    Traceback (most recent call last):
    ...
    ui.service.strict_json.InvalidJsonError: NaN is not a JSON number; send a finite number
    """
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InvalidJsonError(f"the body is not UTF-8 (byte {error.start})") from None
    try:
        value = json.loads(
            text, parse_constant=_refuse_constant, parse_float=_finite, parse_int=_int
        )
    except json.JSONDecodeError as error:
        raise InvalidJsonError(f"not valid JSON: {error.msg} at line {error.lineno}") from None
    _check_strings(value, "body")
    return value


def _refuse_constant(name: str) -> float:
    raise InvalidJsonError(f"{name} is not a JSON number; send a finite number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise InvalidJsonError(f"{text[:40]} is out of range for a number; send a finite number")
    return value


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise InvalidJsonError(f"an integer of {len(text)} digits is out of range")
    return int(text)


def _check_strings(value: Any, where: str) -> None:
    if isinstance(value, str):
        _check_text(value, where)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_text(key, where)
            _check_strings(item, f"{where}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_strings(item, f"{where}[{index}]")


def _check_text(text: str, where: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        code = ord(text[error.start])
        raise InvalidJsonError(
            f"{where[:80]}: contains a lone surrogate U+{code:04X}, which is not Unicode text"
        ) from None


def _is_json(headers: Headers) -> bool:
    content_type = headers.get("content-type", "").split(";")[0].strip().lower()
    return content_type == "application/json" or content_type.endswith("+json")


class StrictJson:
    """ASGI middleware: a JSON body that is not strict JSON gets a 422 before the app runs.

    It expects the body to be bounded already (`BodySizeLimit` sits outside it).
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _is_json(Headers(scope=scope)):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if body.strip():  # an empty body is the app's to judge (often "field required")
            try:
                check_json(body)
            except InvalidJsonError as error:
                detail = [{"type": "json_invalid", "loc": ["body"], "msg": str(error)}]
                await send_json(send, 422, detail)
                return
        await self.app(scope, replaying(body, receive), send)


async def validation_error(_: Request, error: Exception) -> JSONResponse:
    """FastAPI's 422, with each input kept only when it can be written back as JSON."""
    errors: Sequence[Any] = error.errors() if isinstance(error, RequestValidationError) else ()
    detail = []
    for problem in errors:
        item = {
            "type": str(problem.get("type", "value_error")),
            "loc": [
                part if isinstance(part, int) else str(part) for part in problem.get("loc", ())
            ],
            "msg": str(problem.get("msg", "invalid value")),
        }
        if _writable(problem.get("input")):
            item["input"] = problem["input"]
        detail.append(item)
    return JSONResponse(status_code=422, content={"detail": detail})


def _writable(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False, ensure_ascii=False).encode("utf-8")
    except (TypeError, ValueError):  # NaN, a surrogate, an object: leave the input out
        return False
    return True
