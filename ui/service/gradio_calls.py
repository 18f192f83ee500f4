"""Gradio's calling routes, checked before Gradio reads them: a malformed call is a 4xx, not a 500.

Gradio (6.x, `gradio/routes.py`) trusts the shape of a call once pydantic has parsed it, and
answered these with a 500 (an uncaught KeyError, TypeError or ValueError, or its own
`status_code=500` around `run/`):

- `queue/join` (and `run/`, `api/`, `call/`) with a `fn_index` that names no function (-1,
  2**64, 9999), or a `call/<name>` whose name is no endpoint;
- an empty `session_hash`: the event files itself under its own id, the session under "", and
  the first message to it raised KeyError;
- `run/<name>`, `api/<name>` or `call/<name>` with fewer inputs than the function takes;
- `call/v2/<name>` whose arguments `gradio_client.utils.construct_args` refuses (`{}`, an
  unknown name), or whose name is no public endpoint;
- `GET /?page=<name>` for a page the app does not have.

And it answered a stream it could not serve with 200, then broke it off with an exception
(`GET queue/data` for a session it does not hold, `GET call/<name>/<event id>` for an unknown
event): those get a 404 before the stream starts.

`GradioCalls` wraps the mounted Gradio app (inside the guards, so only authenticated requests
are read) and answers those with 404 or 422 in the service's error shape. It parses a body with
Gradio's own models and checks it against the `Blocks` the way Gradio's routes will use it,
so anything it lets through is read by Gradio exactly as before. A body Gradio's models refuse
is passed on untouched: FastAPI answers it with its 422.
"""

import json
import re
from collections.abc import Mapping
from functools import cached_property
from typing import Any
from urllib.parse import parse_qs

from gradio.block_function import BlockFunction
from gradio.blocks import Blocks
from gradio.data_classes import PredictBody, SimplePredictBody
from gradio_client.utils import construct_args
from pydantic import ValidationError
from starlette.types import ASGIApp, Receive, Scope, Send

from ui.service.replies import replaying, send_json

__all__ = ["GradioCalls"]

# The result streams: `queue/data?session_hash=...` and `call/<name>/<event id>` (v2 too).
_STREAM = re.compile(r"^/gradio_api/(?:queue/data|call/(?:v2/)?[^/]+/(?P<event>[^/]+))/?$")
# The routes that run a function: `queue/join`, and the named ones (`run/`, `api/`, `call/`,
# `call/v2/`), with or without a trailing slash.
_CALL = re.compile(
    r"^/gradio_api/(?:(?P<join>queue/join)|(?P<kind>run|api|call|call/v2)/(?P<name>[^/]+))/?$"
)


class CallRefusedError(Exception):
    """A call Gradio would answer with a 500; `status` and `detail` are the answer instead."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status, self.detail = status, detail


class GradioCalls:
    """ASGI middleware over the mounted Gradio app: refuse calls that Gradio would answer 500."""

    def __init__(self, app: ASGIApp, blocks: Blocks) -> None:
        self.app = app
        self.blocks = blocks

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            if scope["method"] in ("GET", "HEAD") and scope["path"] == "/":
                self._check_page(scope.get("query_string", b""))
            elif scope["method"] == "GET" and (stream := _STREAM.match(scope["path"])):
                self._check_stream(stream.group("event"), scope.get("query_string", b""))
            elif scope["method"] == "POST" and (call := _CALL.match(scope["path"])):
                body = await _read_body(receive)
                if body is None:
                    return  # the client went away
                receive = replaying(body, receive)
                self._check_call(call.group("kind") or "join", call.group("name"), body)
        except CallRefusedError as refused:
            await send_json(send, refused.status, refused.detail)
            return
        await self.app(scope, receive, send)

    def _check_page(self, query: bytes) -> None:
        pages = {page for page, *_ in self.blocks.pages}
        for page in parse_qs(query.decode("latin-1"), keep_blank_values=True).get("page", []):
            if page not in pages:
                raise CallRefusedError(404, f"no page {page[:80]!r} here; pages: {sorted(pages)}")

    def _check_stream(self, event_id: str | None, query: bytes) -> None:
        """A 404 for a stream of a session the queue does not hold, found as Gradio finds it."""
        queue = self.blocks._queue
        if event_id is None:  # queue/data: the session is named; a missing one is FastAPI's 422
            sessions = parse_qs(query.decode("latin-1"), keep_blank_values=True).get(
                "session_hash", []
            )
            session = sessions[0] if sessions else None
            if session is None:
                return
        elif (event := queue.event_ids_to_events.get(event_id)) is not None:
            session = event.session_hash
        else:  # as `simple_predict_get`: a finished event is known by its pending id
            pending = queue.pending_event_ids_session.items()
            session = next((held for held, ids in pending if event_id in ids), event_id)
        if session not in queue.pending_messages_per_session:
            raise CallRefusedError(
                404, "no such session or event here (its result was read, or it was let go)"
            )

    def _check_call(self, kind: str, name: str | None, body: bytes) -> None:
        try:
            given = json.loads(body)
        except ValueError:  # not JSON, or not UTF-8: Gradio's own parsing answers 422
            return
        if not isinstance(given, dict):
            return
        if kind == "call/v2":
            self._check_named_arguments(name or "", given)
            return
        model = SimplePredictBody if kind == "call" else PredictBody
        try:
            call = model.model_validate(given)
        except ValidationError:
            return
        if call.session_hash is not None and not call.session_hash:
            raise CallRefusedError(422, "session_hash is empty: send a session id, or leave it out")
        fn_index = getattr(call, "fn_index", None)
        fn = self._function(fn_index, None if kind == "join" else name)
        _check_inputs(fn, call.data, simple=kind == "call")

    def _function(self, fn_index: int | None, name: str | None) -> BlockFunction:
        """The function Gradio's `route_utils.get_fn` will pick: by index first, else by name."""
        if fn_index is not None:
            fn = self.blocks.fns.get(fn_index)
            if fn is None:
                raise CallRefusedError(422, f"fn_index {fn_index} names no function of this app")
            return fn
        for fn in self.blocks.fns.values():
            if name is not None and fn.api_name == name:
                return fn
        raise CallRefusedError(404, f"no endpoint named {str(name)[:80]!r}; see /gradio_api/info")

    def _check_named_arguments(self, name: str, given: dict[str, Any]) -> None:
        endpoint = self._endpoints.get(f"/{name}")
        if endpoint is None:
            raise CallRefusedError(404, f"no endpoint named {name[:80]!r}; see /gradio_api/info")
        arguments = {key: value for key, value in given.items() if key != "oauth_token"}
        try:
            construct_args(endpoint["parameters"], (), arguments)
        except (TypeError, ValueError) as error:
            raise CallRefusedError(422, str(error)) from None

    @cached_property
    def _endpoints(self) -> Mapping[str, Any]:
        """The public endpoints and their parameters, as `call/v2` reads them (built once)."""
        endpoints: Mapping[str, Any] = self.blocks.get_api_info()["named_endpoints"]
        return endpoints


def _check_inputs(fn: BlockFunction, data: list[Any], *, simple: bool) -> None:
    """Refuse fewer inputs than `fn` takes, which Gradio's `validate_inputs` raises on.

    A `call/` may leave out the inputs the API hides (state), as Gradio fills those in. A
    batched function takes its inputs in another shape; Gradio checks those itself.
    """
    if fn.batch:
        return
    needed = len(fn.inputs)
    shown = sum(not block.skip_api for block in fn.inputs)
    if len(data) >= needed or (simple and len(data) == shown):
        return
    raise CallRefusedError(
        422,
        f"{fn.api_name or 'this function'} takes {needed} inputs"
        + (f" ({shown} through the API)" if simple and shown != needed else "")
        + f", got {len(data)}",
    )


async def _read_body(receive: Receive) -> bytes | None:
    """The whole body (already bounded by the guards), or None if the client went away."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)
