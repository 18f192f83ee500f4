"""The MLflow UI that `thinkpath experiments ui` serves: MLflow's own app, opening on the runs.

Why this exists. MLflow 3.17's web UI no longer opens an experiment by its `mlflow.experimentKind`
tag (we still set it, `engine.adapters.tracking`, for the versions that read it): a feature flag
that is on in this build makes every experiment page follow one per-browser setting, the
"workflow type", kept in the browser's localStorage (`mlflow.workflowType_v1`), "genai" unless
the user flips MLflow's switch, and overridden for one page by a `?workflowType=` query. So an
experiment clicked from MLflow's home opened on the GenAI overview ("No data available"), while
our printed links (`ui.experiment_commands.runs_link`) carry the query and open on the runs.

This app is MLflow's server app with one change: its index page starts with a line that sets the
workflow type to "machine_learning" in a browser that has never chosen one. A user's own choice,
made with MLflow's switch, is kept; the API, the artifacts and every other page are MLflow's,
untouched. The store and artifact root come in the environment variables `mlflow server` itself
sets for its workers (`server_environment`), named by MLflow's own constants.
"""

import json
import warnings
from pathlib import Path
from typing import Any

from engine.errors import ConfigError

__all__ = ["PREFERENCE_SCRIPT", "WORKFLOW_KEY", "create_app", "index_page", "server_environment"]

# The localStorage key and value MLflow's UI reads (`useLocalStorage({key: "mlflow.workflowType",
# version: 1})`, stored as JSON), as found in the 3.17 bundle.
WORKFLOW_KEY = "mlflow.workflowType_v1"
MACHINE_LEARNING = "machine_learning"
_KEY, _VALUE = json.dumps(WORKFLOW_KEY), json.dumps(json.dumps(MACHINE_LEARNING))
PREFERENCE_SCRIPT = (
    f"<script>try{{if(localStorage.getItem({_KEY})===null)"
    f"{{localStorage.setItem({_KEY},{_VALUE})}}}}catch(e){{}}</script>"
)


def index_page(html: str) -> str:
    """MLflow's index page with the preference set first, before any of MLflow's scripts run.

    >>> page = index_page("<html><head><title>MLflow</title></head></html>")
    >>> page.index("mlflow.workflowType_v1") < page.index("<title>")
    True
    """
    head = html.find("<head>")
    if head < 0:  # not the page we know: serve it as it is rather than guess
        return html
    cut = head + len("<head>")
    return html[:cut] + PREFERENCE_SCRIPT + html[cut:]


def server_environment(tracking_uri: str, artifact_root: Path) -> dict[str, str]:
    """The variables `mlflow server` passes its workers, for this store and artifact root."""
    from mlflow.environment_variables import _MLFLOW_SGI_NAME  # noqa: PLC0415 - slow import
    from mlflow.server.constants import (  # noqa: PLC0415
        ARTIFACT_ROOT_ENV_VAR,
        BACKEND_STORE_URI_ENV_VAR,
        REGISTRY_STORE_URI_ENV_VAR,
    )

    return {
        BACKEND_STORE_URI_ENV_VAR: tracking_uri,
        REGISTRY_STORE_URI_ENV_VAR: tracking_uri,
        ARTIFACT_ROOT_ENV_VAR: artifact_root.resolve().as_uri(),
        _MLFLOW_SGI_NAME.name: "uvicorn",
    }


def create_app() -> Any:
    """MLflow's ASGI app (what `mlflow server` runs) with the index page above; for uvicorn."""
    from flask import Response  # noqa: PLC0415 - MLflow's own dependency, slow to import

    with warnings.catch_warnings():
        # MLflow 3.17's server imports deprecated parts of its dependencies (SQLAlchemy's
        # `noload`, Starlette's WSGI middleware): MLflow's to fix, nothing about this app.
        warnings.filterwarnings("ignore", message=".*noload.*", category=DeprecationWarning)
        warnings.filterwarnings("ignore", message=".*starlette.middleware.wsgi is deprecated.*")
        from mlflow.server import app as flask_app  # noqa: PLC0415
        from mlflow.server.fastapi_app import app  # noqa: PLC0415

    index = Path(str(flask_app.static_folder)) / "index.html"

    def serve() -> Response:
        return Response(index_page(index.read_text(encoding="utf-8")), mimetype="text/html")

    # "serve" is the view MLflow registers for its index page (mlflow/server/__init__.py).
    if "serve" not in flask_app.view_functions:
        raise ConfigError("this MLflow has no 'serve' view: the UI cannot be made to open on runs")
    flask_app.view_functions["serve"] = serve
    return app
