"""The MLflow UI that `thinkpath experiments ui` serves: MLflow's own app, opening on the project.

Why this exists. MLflow 3.17's web UI keeps its first-view choices in the browser's localStorage,
and its defaults suit neither this project nor a user who has never opened it:
- it opens on a generic welcome page, with an "Information about UI telemetry" banner;
- the AI assistant's panel opens by itself on a local server's first load;
- an experiment no longer opens by its `mlflow.experimentKind` tag (we still set it,
  `engine.adapters.tracking`, for the versions that read it) but by one per-browser "workflow
  type", "genai" unless the user flips MLflow's switch, so an experiment clicked from the list
  opened on the GenAI overview ("No data available");
- its chart view shows only the first ten rows of the runs table, so an experiment's parent
  run opened out to its contenders hid the older ten and more (the baselines, logged first);
- a parent run starts folded, so its contenders (one child run each, with their curves) are
  neither listed nor charted: the chart view drew the parent's own metrics alone, one line each.

This app is MLflow's server app with one change: its index page starts with a script that,
before any of MLflow's scripts run, fills in those choices where the browser has made none
(`BROWSER_DEFAULTS`; for an experiment page opened for the first time, every run shown and its
newest parent run opened out, so the contenders' curves are overlaid, one colour each), and
sends the bare address to the project's experiment (`HOME_EXPERIMENT_VARIABLE`, chosen by
`thinkpath experiments ui`: the one with the latest run), or to the list where there is none.
A user's own choices, made in MLflow, are kept; the
API, the artifacts and every other page are MLflow's, untouched. MLflow offers no server setting
for any of these: `MLFLOW_DISABLE_TELEMETRY` (set in `ui.experiment_commands`) stops the
telemetry itself, not the banner; the assistant can be kept off remote clients, not a local one.
The store and artifact root come in the environment variables `mlflow server` itself sets for
its workers (`server_environment`), named by MLflow's own constants.
"""

import json
import os
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.errors import ConfigError

if TYPE_CHECKING:
    from mlflow.tracking import MlflowClient

__all__ = [
    "BROWSER_DEFAULTS",
    "EXPERIMENT_VIEW",
    "HOME_EXPERIMENT_VARIABLE",
    "PREFERENCE_SCRIPT",
    "WORKFLOW_KEY",
    "create_app",
    "index_page",
    "newest_parents",
    "server_environment",
]

# The localStorage entries MLflow's UI reads through its `useLocalStorage({key, version})`, stored
# as JSON under `<key>_v<version>`, as found in the 3.17 bundle; each is written only where the
# browser has none.
WORKFLOW_KEY = "mlflow.workflowType_v1"
BROWSER_DEFAULTS: dict[str, object] = {
    WORKFLOW_KEY: "machine_learning",  # an experiment opens on its runs
    "mlflow.telemetry.info.alert.dismissed_v1": True,  # no telemetry banner on the home page
    # MLflow's own settings switch for UI telemetry, off as the server's is (OFFLINE.md)
    "mlflow.settings.telemetry.enabled_v1": False,
    # the assistant opens itself once, on a local server's first load; it counts as done
    "mlflow.assistant.fab.autoOpenedOnFirstLoad_v1": True,
}
# The experiment page's saved view, one per set of experiments (the key holds their ids as a
# JSON list), read when the page opens and written on every change: where none is saved yet,
# the page starts from this one, with each experiment's newest parent run in `runsExpanded`
# (`newest_parents`). Its other fields keep MLflow's defaults; `runsHiddenMode` replaces "the
# first ten rows".
EXPERIMENT_VIEW_KEY = r"^MLflowLocalStorage-1\.1-ExperimentPage-(.*)-ReactComponentState$"
EXPERIMENT_VIEW: dict[str, object] = {"runsHiddenMode": "SHOW_ALL"}
PARENT_TAG = "mlflow.parentRunId"  # MLflow's tag for a nested run's parent
# The bare address (MLflow's welcome page) goes to the project's experiment instead (its id in
# this variable of the server's environment), else to the experiment list.
HOME_HASHES = ("", "#", "#/")
EXPERIMENT_LIST = "#/experiments"
HOME_EXPERIMENT_VARIABLE = "THINKPATH_UI_EXPERIMENT"


def home_hash(experiment_id: str | None) -> str:
    """Where the bare address goes: an experiment's runs, or the list without one.

    >>> home_hash("3"), home_hash(None)
    ('#/experiments/3?workflowType=machine_learning', '#/experiments')
    """
    if experiment_id is None or not experiment_id.isdigit():  # MLflow's ids are digits
        return EXPERIMENT_LIST
    return f"{EXPERIMENT_LIST}/{experiment_id}?workflowType=machine_learning"


def _script(home: str = EXPERIMENT_LIST, expanded: Mapping[str, str] | None = None) -> str:
    """The index page's first script: plain ES5, in a try, so that a browser without storage
    (a private window that refuses it) still gets MLflow's own page; the bare address goes to
    `home`; an experiment page seen for the first time opens out its parent run in `expanded`
    (experiment id -> run id)."""
    defaults = {key: json.dumps(value) for key, value in BROWSER_DEFAULTS.items()}
    view = json.dumps(EXPERIMENT_VIEW_KEY)
    # "</" cannot end the script early: ids are MLflow's (digits, hex), but the page is HTML
    parents = json.dumps(dict(expanded or {})).replace("</", "<\\/")
    return (
        "<script>(function(){try{"
        f"var d={json.dumps(defaults)};"
        "for(var k in d){if(localStorage.getItem(k)===null){localStorage.setItem(k,d[k])}}"
        "var get=Storage.prototype.getItem;"
        f"var view=new RegExp({view}),parents={parents};"
        "function shown(ids){"
        f"var v={json.dumps(EXPERIMENT_VIEW)},open={{}};"
        "for(var i=0;i<ids.length;i++){"
        "if(parents.hasOwnProperty(ids[i])){open[parents[ids[i]]]=true}}"
        "v.runsExpanded=open;return JSON.stringify(v)}"
        "Storage.prototype.getItem=function(key){var value=get.call(this,key);"
        "var m=value===null&&this===window.localStorage&&view.exec(key);"
        "if(!m){return value}var ids=[];try{ids=JSON.parse(m[1])}catch(e){}"
        "return shown(ids instanceof Array?ids:[])};"
        f"if({json.dumps(list(HOME_HASHES))}.indexOf(location.hash)>=0)"
        f"{{location.replace({json.dumps(home)})}}"
        "}catch(e){}})()</script>"
    )


PREFERENCE_SCRIPT = _script()


def index_page(
    html: str, home_experiment: str | None = None, expanded: Mapping[str, str] | None = None
) -> str:
    """MLflow's index page with the preferences set first, before any of MLflow's scripts run,
    the bare address sent to `home_experiment`'s runs (`home_hash`), and each experiment's
    parent run in `expanded` (experiment id -> run id) opened out on its first view.

    >>> page = index_page("<html><head><title>MLflow</title></head></html>", "7", {"7": "ab12"})
    >>> page.index("mlflow.workflowType_v1") < page.index("<title>"), "#/experiments/7?" in page
    (True, True)
    >>> '{"7": "ab12"}' in page
    True
    """
    head = html.find("<head>")
    if head < 0:  # not the page we know: serve it as it is rather than guess
        return html
    cut = head + len("<head>")
    if home_experiment is None and not expanded:
        script = PREFERENCE_SCRIPT
    else:
        script = _script(home_hash(home_experiment), expanded)
    return html[:cut] + script + html[cut:]


def newest_parents(client: "MlflowClient") -> dict[str, str]:
    """Each experiment's parent run whose contenders are newest: experiment id -> run id.

    Contenders are logged after their parent, so an experiment's newest run is one of them
    where the newest invocation has any; an experiment whose newest run is not nested (the
    engine's live run) has none to open out.
    """
    parents: dict[str, str] = {}
    for experiment in client.search_experiments():
        newest = client.search_runs(
            [experiment.experiment_id], max_results=1, order_by=["attributes.start_time DESC"]
        )
        parent = newest[0].data.tags.get(PARENT_TAG) if newest else None
        if parent:
            parents[str(experiment.experiment_id)] = parent
    return parents


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


def _store_client() -> "MlflowClient | None":
    """A client of the store this server serves (from `server_environment`), or None where the
    app runs without one (MLflow's own defaults then apply)."""
    from mlflow.server.constants import BACKEND_STORE_URI_ENV_VAR  # noqa: PLC0415 - slow import
    from mlflow.tracking import MlflowClient  # noqa: PLC0415

    uri = os.environ.get(BACKEND_STORE_URI_ENV_VAR)
    return MlflowClient(tracking_uri=uri) if uri else None


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
    home = os.environ.get(HOME_EXPERIMENT_VARIABLE) or None
    client = _store_client()

    def serve() -> Response:
        # Read on each visit: a run logged while the UI is up opens out too.
        expanded = newest_parents(client) if client is not None else None
        page = index_page(index.read_text(encoding="utf-8"), home, expanded)
        return Response(page, mimetype="text/html")

    # "serve" is the view MLflow registers for its index page (mlflow/server/__init__.py).
    if "serve" not in flask_app.view_functions:
        raise ConfigError("this MLflow has no 'serve' view: the UI cannot be made to open on runs")
    flask_app.view_functions["serve"] = serve
    return app
