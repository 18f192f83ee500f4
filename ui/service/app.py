"""The whole service: the API, with the Gradio playground mounted at `/`."""

from collections.abc import Sequence

import gradio as gr
from fastapi import FastAPI

from engine.core.facade import Engine
from ui.playground import build_playground
from ui.service.api import create_api

PLAYGROUND_USER = "thinkpath"


def create_app(
    engine: Engine,
    *,
    token: str | None = None,
    max_body_bytes: int = 64 * 1024,
    cors_origins: Sequence[str] = (),
) -> FastAPI:
    """API routes first, so that `/api/v1/...`, `/docs` and `/openapi.json` win over the mount.

    With a token, the playground asks for it at a login page (user `thinkpath`): a browser cannot
    send a bearer header, and the page drives the same engine as the API.
    """
    app = create_api(engine, token=token, max_body_bytes=max_body_bytes, cors_origins=cors_origins)
    auth = (PLAYGROUND_USER, token) if token else None
    mounted: FastAPI = gr.mount_gradio_app(app, build_playground(engine), path="", auth=auth)
    return mounted
