"""A drop-in OpenAI-compatible endpoint (`/v1`) that learns from feedback.

    client = OpenAI(base_url="http://127.0.0.1:8765/v1", api_key=token or "unused")
    reply = client.chat.completions.create(model="thinkpath", messages=[...])
    httpx.post(f"{base}/api/v1/decisions/{reply.id}/outcomes", json={"source": "user", "reward": 1})

`thinkpath` lets the engine choose path and tool; `thinkpath:<template id>` forces a path. The
response `id` is the decision id, so feedback needs nothing else. See docs/openai.md.

It is a sub-application mounted at `/v1`, not a router of the main API, so that its errors can
take OpenAI's shape (`{"error": {...}}`, which the `openai` client parses) while `/api/v1` keeps
its own. The engine is synchronous: a plain request runs it in the thread pool; a streaming one
runs it in a worker thread whose listener hands each answer token to the event loop.

A stream is validated as a plain request is: its response starts only once the engine has taken
the request (its first stage has run), so a query the engine refuses (empty, too long) gets the
same 400 either way, not a 200 with an error event. `/v1/models` lists the live templates only:
a retired one cannot be forced.
"""

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from typing import Any

import anyio
from fastapi import FastAPI, Request, status
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from starlette.exceptions import HTTPException

from engine import ChatOptions, Decision, Engine, TraceStep
from engine.errors import (
    BudgetExceededError,
    InvalidKindError,
    InvalidQueryError,
    PolicyError,
    StoreUnavailableError,
    ThinkPathError,
    UnknownArmError,
)
from ui.service.choice_format import ChoiceFormat
from ui.service.schemas import (
    BASE_MODEL,
    ChatCompletionRequest,
    OpenAIError,
    chunk_body,
    completion_body,
    error_body,
    extension,
    model_card,
    model_list,
    model_names,
    route,
    unanswered,
    usage,
)

OPENAI_PREFIX = "/v1"
DECIDE_MS_HEADER = "x-thinkpath-decide-ms"  # milliseconds the engine took inside a request

# Engine errors as OpenAI statuses and types; anything else is a 500.
_ENGINE_ERRORS: tuple[tuple[type[ThinkPathError], int, str], ...] = (
    (InvalidQueryError, status.HTTP_400_BAD_REQUEST, "invalid_request_error"),
    (InvalidKindError, status.HTTP_400_BAD_REQUEST, "invalid_request_error"),  # metadata.task
    (UnknownArmError, status.HTTP_404_NOT_FOUND, "not_found_error"),  # retired meanwhile
    (PolicyError, status.HTTP_422_UNPROCESSABLE_CONTENT, "invalid_request_error"),
    (BudgetExceededError, status.HTTP_429_TOO_MANY_REQUESTS, "insufficient_quota"),
    (StoreUnavailableError, status.HTTP_503_SERVICE_UNAVAILABLE, "server_error"),
)
_HTTP_ERROR_TYPES = {
    status.HTTP_401_UNAUTHORIZED: "authentication_error",
    status.HTTP_404_NOT_FOUND: "not_found_error",
    status.HTTP_405_METHOD_NOT_ALLOWED: "invalid_request_error",
}


def create_openai_app(engine: Engine) -> FastAPI:
    """The `/v1` sub-application. The service's guards (Host, CORS, token, body size, strict
    JSON) wrap the whole app, this mount included; their refusals carry OpenAI's `error` too."""
    app = FastAPI(
        title="ThinkPath (OpenAI-compatible)", docs_url=None, redoc_url=None, openapi_url=None
    )
    running: set[asyncio.Task[Decision]] = set()  # decisions outlive a client that went away

    @app.get("/models")
    def list_models() -> dict[str, Any]:
        return model_list(_template_ids(engine), engine.models.ids)

    @app.get("/models/{model_id:path}")
    def read_model(model_id: str) -> dict[str, Any]:
        if model_id not in model_names(_template_ids(engine), engine.models.ids):
            route(model_id, ())  # raises the 404 with its explanation
        return model_card(model_id)

    @app.post("/chat/completions", response_model=None)
    async def chat_completions(body: ChatCompletionRequest) -> JSONResponse | StreamingResponse:
        body.refuse_unsupported()
        force, pinned = route(body.model, _template_ids(engine), engine.models.ids)
        query, chat = body.engine_input()
        if body.stream:
            include_usage = body.stream_options is not None and body.stream_options.include_usage
            stream = DecisionStream(
                engine,
                running,
                query=query,
                chat=chat,
                force=force,
                task=body.task(),
                model=pinned,
            )
            await stream.accepted()  # the engine's refusal is raised here, before any byte
            return StreamingResponse(
                stream.events(body.model, include_usage=include_usage),
                media_type="text/event-stream",
                headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
            )
        choice = body.choice()  # options from a response_format enum: the answer is one of them
        options = choice.options if choice is not None else None
        started = time.perf_counter()
        decision = await run_in_threadpool(
            lambda: engine.decide(
                query,
                chat=chat,
                force_path=force,
                task=body.task(),
                options=options,
                model=pinned,
            )
        )
        decide_ms = (time.perf_counter() - started) * 1000
        if decision.answer is None:
            raise unanswered(decision)
        content = decision.answer if choice is None else _in_schema(decision, choice)
        # Like OpenAI's `openai-processing-ms`: lets a client (or the benchmark) tell the
        # engine's time from the endpoint's and the network's.
        return JSONResponse(
            completion_body(decision, body.model, content),
            headers={DECIDE_MS_HEADER: f"{decide_ms:.3f}"},
        )

    app.add_exception_handler(OpenAIError, _openai_error)
    app.add_exception_handler(ThinkPathError, _engine_error)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(Exception, _server_error)
    return app


def _template_ids(engine: Engine) -> list[str]:
    """The live templates' ids: a retired template is no model to list or force."""
    retired = {row.arm_id for row in engine.arms() if row.role == "path" and row.retired}
    return [path.arm_id for path in engine.templates() if path.arm_id not in retired]


class TokenRelay:
    """The engine's listener for one stream: answer tokens go to `send`, stages as comments.

    The answer is stored stripped of surrounding whitespace, so leading whitespace is dropped
    and trailing whitespace is held back until more text follows it: the streamed text joined
    equals `decision.answer` exactly.

    >>> sent = []
    >>> relay = TokenRelay(sent.append)
    >>> for piece in ["\\n", " The", " answer", " \\n", "is 4", "\\n"]:
    ...     relay.on_token(piece)
    >>> "".join(text for kind, text in sent)
    'The answer \\nis 4'
    """

    def __init__(self, send: Callable[[tuple[str, str]], None]) -> None:
        self._send = send
        self._started = False
        self._held = ""

    def on_stage(self, step: TraceStep) -> None:
        self._send(("stage", f"{step.stage} {step.reason}"))

    def on_token(self, text: str) -> None:
        if not self._started:
            text = text.lstrip()
            if not text:
                return
            self._started = True
        body = text.rstrip()
        if body:
            self._send(("token", self._held + body))
            self._held = ""
        self._held += text[len(body) :]


class DecisionStream:
    """One streamed decision: the engine runs in a worker thread, its tokens come out as events.

    The decision runs in a task of its own: if the client goes away, it still finishes and is
    stored.
    """

    def __init__(
        self,
        engine: Engine,
        running: set["asyncio.Task[Decision]"],
        *,
        query: str,
        chat: ChatOptions,
        force: str | None,
        task: str | None = None,
        model: str | None = None,
    ) -> None:
        self.decision_id = uuid.uuid4().hex
        self._task_name = task
        self.created = int(datetime.now(UTC).timestamp())
        loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue[tuple[str, str] | None] = asyncio.Queue()
        self._first: tuple[str, str] | None = None

        def send(item: tuple[str, str] | None) -> None:
            # A server shutting down closes its loop while a decision may still be running; the
            # decision must still finish and be stored, so its tokens then go nowhere.
            if not loop.is_closed():
                loop.call_soon_threadsafe(self._queue.put_nowait, item)

        relay = TokenRelay(send)

        def decide() -> Decision:
            try:
                return engine.decide(
                    query,
                    chat=chat,
                    force_path=force,
                    decision_id=self.decision_id,
                    listener=relay,
                    task=task,
                    model=model,
                )
            finally:
                send(None)

        self._task = asyncio.ensure_future(anyio.to_thread.run_sync(decide))
        running.add(self._task)
        self._task.add_done_callback(running.discard)

    async def accepted(self) -> None:
        """Wait until the engine has run its first stage; raise its error if it refused first."""
        self._first = await self._queue.get()
        if self._first is None:
            await self._task  # ended before any stage: a refusal (raised) or nothing to stream

    async def events(self, model: str, *, include_usage: bool) -> AsyncIterator[str]:
        """Server-sent events: a role chunk, one chunk per token, the final chunk, `[DONE]`."""
        ident, created = self.decision_id, self.created
        yield _event(chunk_body(ident, model, created, {"role": "assistant", "content": ""}))
        item = self._first
        while item is not None:
            kind, text = item
            if kind == "token":
                yield _event(chunk_body(ident, model, created, {"content": text}))
            else:  # progress while the seed and selection run; SSE clients ignore comments
                yield f": {text}\n\n"
            item = await self._queue.get()
        async for event in self._ending(model, include_usage=include_usage):
            yield event

    async def _ending(self, model: str, *, include_usage: bool) -> AsyncIterator[str]:
        try:
            decision = await self._task
        except ThinkPathError as error:
            code, kind = _status_of(error)
            yield _event(error_body(str(error), kind=kind, code=str(code)))
            yield "data: [DONE]\n\n"
            return
        if decision.answer is None:
            yield _event(unanswered(decision).body())
            yield "data: [DONE]\n\n"
            return
        final = chunk_body(decision.id, model, self.created, {}, finish_reason="stop")
        final["thinkpath"] = extension(decision)
        yield _event(final)
        if include_usage:
            tail = chunk_body(decision.id, model, self.created, {})
            tail["choices"] = []
            tail["usage"] = usage(decision)
            yield _event(tail)
        yield "data: [DONE]\n\n"


def _in_schema(decision: Decision, choice: ChoiceFormat) -> str:
    """The reply's content for an enum `response_format`: the schema's object with the answer.

    An answer that is none of them is refused with a 500 naming it and the decision's degraded
    reasons, never sent with a 200: the client asked for that schema and parses the content as
    such, so a value outside it is an error it would not see (the engine answers questions with
    options through an option arm, but a decision without one is answered degraded in free
    text: `engine.domain.option_arms`).
    """
    answer = decision.answer or ""
    if answer in choice.options:  # an option arm answers with the option's text as given
        return choice.content(answer)
    reasons = "; ".join(decision.degraded_reasons) or "no reason recorded"
    raise OpenAIError(
        500,
        f"decision {decision.id} answered {answer[:200]!r}, which is none of the "
        f"response_format's enum {choice.options}: {reasons}",
        kind="server_error",
        code="answer_outside_schema",
    )


def _event(body: dict[str, Any]) -> str:
    return f"data: {json.dumps(body, separators=(',', ':'))}\n\n"


def _status_of(error: ThinkPathError) -> tuple[int, str]:
    for kind, code, name in _ENGINE_ERRORS:
        if isinstance(error, kind):
            return code, name
    return status.HTTP_500_INTERNAL_SERVER_ERROR, "server_error"


async def _openai_error(_: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, OpenAIError)
    return JSONResponse(status_code=error.status, content=error.body())


async def _engine_error(_: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, ThinkPathError)
    code, kind = _status_of(error)
    return JSONResponse(status_code=code, content=error_body(str(error), kind=kind))


async def _http_error(_: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, HTTPException)
    kind = _HTTP_ERROR_TYPES.get(error.status_code, "invalid_request_error")
    code = "invalid_api_key" if error.status_code == status.HTTP_401_UNAUTHORIZED else None
    return JSONResponse(
        status_code=error.status_code,
        content=error_body(str(error.detail), kind=kind, code=code),
        headers=error.headers,
    )


async def _validation_error(_: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, RequestValidationError)
    problems = error.errors()
    first = problems[0] if problems else {}
    where = ".".join(str(part) for part in first.get("loc", ()) if part != "body")
    message = "; ".join(
        f"{'.'.join(str(p) for p in problem.get('loc', ()) if p != 'body') or 'body'}: "
        f"{problem.get('msg', 'invalid')}"
        for problem in problems[:5]
    )
    return JSONResponse(
        status_code=status.HTTP_422_UNPROCESSABLE_CONTENT,
        content=error_body(message or "invalid request", kind="invalid_request_error", param=where),
    )


async def _server_error(_: Request, error: Exception) -> JSONResponse:
    # The traceback goes to the server log (Starlette re-raises after this response is sent);
    # the client learns only that it was the server's fault.
    return JSONResponse(
        status_code=status.HTTP_500_INTERNAL_SERVER_ERROR,
        content=error_body(
            f"internal error ({type(error).__name__}); see the server log", kind="server_error"
        ),
    )


__all__ = [
    "BASE_MODEL",
    "DECIDE_MS_HEADER",
    "OPENAI_PREFIX",
    "DecisionStream",
    "TokenRelay",
    "create_openai_app",
]
