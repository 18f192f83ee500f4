"""The whole service: the API and the playground at `/`, behind one set of guards."""

from collections.abc import Sequence

import gradio as gr
from fastapi import FastAPI, Request

from engine import Engine
from ui.playground import build_playground
from ui.service.api import create_api
from ui.service.auth import Access
from ui.service.guards import DEFAULT_ALLOWED_HOSTS
from ui.service.limits import MAX_BODY_BYTES


def create_app(
    engine: Engine,
    *,
    token: str | None = None,
    max_body_bytes: int = MAX_BODY_BYTES,
    cors_origins: Sequence[str] = (),
    allowed_hosts: Sequence[str] = DEFAULT_ALLOWED_HOSTS,
    access: Access | None = None,
    guarded: bool = True,
) -> FastAPI:
    """API routes first, so that `/api/v1/...`, `/docs` and `/openapi.json` win over the mount.

    The guards of `create_api` wrap the mount too. With a token, a person logs in at `/login`
    (ThinkPath's page, which shows nothing of the API) and gets a session cookie; a program
    sends the bearer header, `gradio_client` included. Gradio's own password login is not used:
    its cookie is `SameSite=None` and its login page embeds the API description. `access`
    (built from `token` when not given) lets a caller choose the back-off; `guarded=False` is
    for a caller that wraps the app in the guards itself (see `create_api`).
    """
    access = access if access is not None else Access(token)
    app = create_api(
        engine,
        max_body_bytes=max_body_bytes,
        cors_origins=cors_origins,
        allowed_hosts=allowed_hosts,
        access=access,
        guarded=guarded,
    )

    def user(request: Request) -> str | None:
        # The gate has already checked; asking again costs little and keeps Gradio closed even
        # if it were ever mounted without the gate.
        return access.user_of(request.headers)

    mounted: FastAPI = gr.mount_gradio_app(
        app, build_playground(engine), path="", auth_dependency=user if access.required else None
    )
    return mounted
