"""The whole service: the API and the playground at `/`, behind one set of guards."""

from collections.abc import Sequence

import gradio as gr
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.routing import Mount

from engine import Engine
from ui.playground import PLAYGROUND_CSS, build_playground
from ui.service.api import create_api
from ui.service.auth import Access
from ui.service.gradio_calls import GradioCalls
from ui.service.gradio_queue import mend_queue, queue_problem
from ui.service.guards import DEFAULT_ALLOWED_HOSTS
from ui.service.limits import MAX_BODY_BYTES
from ui.service.queue_guard import PlaygroundQueue, QueueGuard, QueueLimits
from ui.service.strict_json import validation_error


def create_app(
    engine: Engine,
    *,
    token: str | None = None,
    max_body_bytes: int = MAX_BODY_BYTES,
    cors_origins: Sequence[str] = (),
    allowed_hosts: Sequence[str] = DEFAULT_ALLOWED_HOSTS,
    access: Access | None = None,
    guarded: bool = True,
    queue_limits: QueueLimits | None = None,
) -> FastAPI:
    """API routes first, so that `/api/v1/...`, `/docs` and `/openapi.json` win over the mount.

    The guards of `create_api` wrap the mount too. With a token, a person logs in at `/login`
    (ThinkPath's page, which shows nothing of the API) and gets a session cookie; a program
    sends the bearer header, `gradio_client` included. Gradio's own password login is not used:
    its cookie is `SameSite=None` and its login page embeds the API description. `access`
    (built from `token` when not given) lets a caller choose the back-off; `guarded=False` is
    for a caller that wraps the app in the guards itself (see `create_api`).

    Gradio's own routes are hardened where they answered 500: its queue is mended so that no
    number of calls stops it (`ui.service.gradio_queue`, whose state health reports), its
    calling routes are checked before it reads them (`ui.service.gradio_calls`), and its
    validation errors are answered by ours, which do not fail on a body that is not UTF-8.
    Its queue is shared fairly (`ui.service.queue_guard`, within `queue_limits`): unread results
    expire, one client holds at most its share, and health reports a queue backing up.
    """
    access = access if access is not None else Access(token)
    page = build_playground(engine)
    mend_queue(page)
    book = PlaygroundQueue(page, queue_limits or QueueLimits())
    # Direct calls (`run/`, `api/`) skip the queue, its one-at-a-time limit included, and Gradio
    # answers any error in them with a 500, a value outside a dropdown's choices too. The page
    # and `gradio_client` join the queue; so queued functions refuse direct calls (404).
    page.api_open = False
    app = create_api(
        engine,
        max_body_bytes=max_body_bytes,
        cors_origins=cors_origins,
        allowed_hosts=allowed_hosts,
        access=access,
        guarded=guarded,
        health_checks={"playground": lambda: queue_problem(page) or book.problem()},
    )

    def user(request: Request) -> str | None:
        # The gate has already checked; asking again costs little and keeps Gradio closed even
        # if it were ever mounted without the gate.
        return access.user_of(request.headers)

    mounted: FastAPI = gr.mount_gradio_app(
        app,
        page,
        path="",
        auth_dependency=user if access.required else None,
        css=PLAYGROUND_CSS,
    )
    _harden(mounted, page, book)
    mounted.state.playground = page  # for whoever must reach the playground's Blocks (tests)
    mounted.state.playground_queue = book
    return mounted


def _harden(app: FastAPI, page: gr.Blocks, book: PlaygroundQueue) -> None:
    """Put `GradioCalls` and `QueueGuard` around the Gradio app mounted at the root, our 422 in it.

    FastAPI's default 422 handler echoes the input and fails (a 500) on bytes that are not UTF-8:
    a body sent as text/plain, form-encoded or without a content type, on every Gradio route.
    """
    gradio = next(
        route for route in reversed(app.routes) if isinstance(route, Mount) and route.path == ""
    )
    if not isinstance(gradio.app, FastAPI):  # Gradio's `App` is one; if not, read the upgrade
        raise TypeError(f"the playground's app is a {type(gradio.app).__name__}, not FastAPI")
    gradio.app.add_exception_handler(RequestValidationError, validation_error)
    gradio.app = QueueGuard(GradioCalls(gradio.app, page), book)
