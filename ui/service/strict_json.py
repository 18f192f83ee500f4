"""Strict JSON at the edge: non-finite numbers and invalid Unicode are a 422, never a 500.

Python's `json` reads `NaN`, `Infinity` and `1e400` (as inf) and keeps lone surrogates such as
`"\\ud800"` in strings; none of them is JSON (RFC 8259), and each one used to reach a handler that
could not serialise it back, or a store that could not encode it: a 500. `StrictJson` checks
every JSON request body on every route before the app parses it, and `validation_error` answers
pydantic's complaints without echoing inputs that cannot be written as JSON.

Nesting is bounded too (`MAX_DEPTH`): a body nested 1,000 deep made the parser (and every
recursive walk after it) raise RecursionError, a 500 on every JSON route. No request of ours nests
deeper than a handful of levels. A body without a content type is checked as well, because
FastAPI parses such a body as JSON.
"""

import email.message
import json
import math
import re
from collections.abc import Sequence
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from ui.service.replies import replaying, send_json

__all__ = [
    "MAX_DEPTH",
    "InvalidJsonError",
    "NotJsonError",
    "StrictJson",
    "check_json",
    "validation_error",
]

# A float has about 308 decimal digits of range: an integer longer than this is no JSON number
# any reader can keep (and a very long one costs quadratic time to convert).
MAX_INT_DIGITS = 309
MAX_DEPTH = 32  # arrays and objects inside one another
# A string (with its escapes) or a bracket: what the depth scan looks at, strings skipped whole.
_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)


class InvalidJsonError(ValueError):
    """A body that is not strict JSON; the message says where and why."""


class NotJsonError(InvalidJsonError):
    """A body that is not JSON at all (not UTF-8, or not JSON syntax)."""


def check_json(body: bytes) -> Any:
    """Parse `body` as strict JSON, or raise `InvalidJsonError` naming the problem.

    >>> check_json(b'{"reward": 0.5}')
    {'reward': 0.5}
    >>> check_json(b'{"reward": NaN}')
    Traceback (most recent call last):
    ...
    ui.service.strict_json.InvalidJsonError: NaN is not a JSON number; send a finite number
    >>> check_json(b"[" * 40 + b"]" * 40)
    Traceback (most recent call last):
    ...
    ui.service.strict_json.InvalidJsonError: nested more than 32 deep; send flatter JSON
    """
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise NotJsonError(f"the body is not UTF-8 (byte {error.start})") from None
    _check_depth(text)
    try:
        value = json.loads(
            text, parse_constant=_refuse_constant, parse_float=_finite, parse_int=_int
        )
    except json.JSONDecodeError as error:
        raise NotJsonError(f"not valid JSON: {error.msg} at line {error.lineno}") from None
    _check_strings(value, "body")
    return value


def _check_depth(text: str) -> None:
    """Refuse nesting deeper than `MAX_DEPTH` before any recursive parser sees it."""
    depth = 0
    for token in _STRING_OR_BRACKET.finditer(text):
        bracket = token.group()
        if bracket in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise InvalidJsonError(f"nested more than {MAX_DEPTH} deep; send flatter JSON")
        elif bracket in "]}":
            depth -= 1


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


def _judged_as_json(headers: Headers) -> bool | None:
    """True for a JSON content type, None for none (FastAPI then reads JSON), else False.

    Read as FastAPI reads it (`fastapi.routing`), so that no body FastAPI parses as JSON gets
    past unchecked: an empty header counts as none, and the type is parsed by `email.message`.

    >>> [_judged_as_json(Headers({"content-type": t})) for t in ["application/json", "", "text/x"]]
    [True, None, False]
    """
    given = headers.get("content-type")
    if not given:
        return None
    message = email.message.Message()
    message["content-type"] = given
    subtype = message.get_content_subtype()
    return message.get_content_maintype() == "application" and (
        subtype == "json" or subtype.endswith("+json")
    )


class StrictJson:
    """ASGI middleware: a JSON body that is not strict JSON gets a 422 before the app runs.

    It expects the body to be bounded already (`BodySizeLimit` sits outside it).
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        declared = _judged_as_json(Headers(scope=scope)) if scope["type"] == "http" else False
        if declared is False:
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
        problem = _problem_with(body, declared=declared is True)
        if problem is not None:
            detail = [{"type": "json_invalid", "loc": ["body"], "msg": problem}]
            await send_json(send, 422, detail)
            return
        await self.app(scope, replaying(body, receive), send)


def _problem_with(body: bytes, *, declared: bool) -> str | None:
    """What is wrong with the body as JSON, or None: an empty body is the app's to judge (often
    "field required"), and so is one that is no JSON at all and was not declared as JSON."""
    if not body.strip():
        return None
    try:
        check_json(body)
    except NotJsonError as error:
        return str(error) if declared else None
    except InvalidJsonError as error:
        return str(error)
    return None


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
