"""The UI app `thinkpath experiments ui` serves: MLflow's own, opening on the project's runs."""

import json
import re
import subprocess
import time
from pathlib import Path
from typing import Any

import playwright
import pytest

from experiments.mlflow_ui import (
    BROWSER_DEFAULTS,
    HOME_EXPERIMENT_VARIABLE,
    PREFERENCE_SCRIPT,
    WORKFLOW_KEY,
    create_app,
    index_page,
    newest_parents,
)

VIEW_KEY = 'MLflowLocalStorage-1.1-ExperimentPage-["3"]-ReactComponentState'
# The index page's first script, run as a browser would run it, in Node (the one Playwright
# ships): localStorage, `window` and `location` are stand-ins that record what the script does.
NODE_BROWSER = """
const vm = require("vm");
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
class Storage {
  constructor(entries) { this.entries = new Map(Object.entries(entries)); }
  getItem(key) { return this.entries.has(key) ? this.entries.get(key) : null; }
  setItem(key, value) { this.entries.set(key, String(value)); }
}
const localStorage = new Storage(input.stored);
const other = new Storage({});
const replaced = [];
const context = {Storage, localStorage, window: {localStorage},
                 location: {hash: input.hash, replace: (to) => replaced.push(to)}};
vm.runInNewContext(input.script, context);
process.stdout.write(JSON.stringify({
  stored: Object.fromEntries(localStorage.entries), replaced,
  read: Object.fromEntries(input.read.map((key) => [key, localStorage.getItem(key)])),
  session: other.getItem(input.read[0]),
}));
"""


def _in_a_browser(
    stored: dict[str, str], hash_: str, read: list[str], page: str = PREFERENCE_SCRIPT
) -> dict[str, Any]:
    node = Path(playwright.__file__).parent / "driver" / "node"
    start = page.index("<script>")
    script = page[start + len("<script>") : page.index("</script>", start)]
    payload = json.dumps({"script": script, "stored": stored, "hash": hash_, "read": read})
    done = subprocess.run(  # our own argv, no shell
        [str(node), "-e", NODE_BROWSER], input=payload, capture_output=True, text=True, check=True
    )
    found: dict[str, Any] = json.loads(done.stdout)
    return found


@pytest.fixture(scope="module")
def index_response() -> str:
    create_app()  # imports MLflow's server first
    from mlflow.server import app as flask_app

    response = flask_app.test_client().get("/")
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    return response.get_data(as_text=True)


def test_the_index_page_sets_the_runs_view_before_mlflows_scripts(index_response: str) -> None:
    assert PREFERENCE_SCRIPT in index_response
    first_script = index_response.index("<script")
    assert index_response.index(WORKFLOW_KEY) < index_response.index("<script", first_script + 1)


def test_the_rest_of_the_page_is_mlflows_own(index_response: str) -> None:
    from mlflow.server import app as flask_app

    original = (Path(str(flask_app.static_folder)) / "index.html").read_text(encoding="utf-8")
    assert index_response.replace(PREFERENCE_SCRIPT, "", 1) == original


def test_a_page_without_a_head_is_served_as_it_is() -> None:
    assert index_page("<p>not MLflow</p>") == "<p>not MLflow</p>"


def test_a_new_browser_opens_on_the_experiment_list_without_banner_or_assistant() -> None:
    seen = _in_a_browser({}, "", [VIEW_KEY, "something-else"])
    assert seen["replaced"] == ["#/experiments"]  # not MLflow's welcome page
    stored = {key: json.loads(value) for key, value in seen["stored"].items()}
    assert stored["mlflow.telemetry.info.alert.dismissed_v1"] is True
    assert stored["mlflow.settings.telemetry.enabled_v1"] is False
    assert stored["mlflow.assistant.fab.autoOpenedOnFirstLoad_v1"] is True
    assert stored[WORKFLOW_KEY] == "machine_learning"
    # an experiment's chart view starts with every run shown, the baselines among them
    assert json.loads(seen["read"][VIEW_KEY]) == {"runsHiddenMode": "SHOW_ALL", "runsExpanded": {}}
    assert seen["read"]["something-else"] is None
    assert seen["session"] is None  # another storage (sessionStorage) is left alone


def test_a_users_own_choices_and_pages_are_kept() -> None:
    saved_view = json.dumps({"runsHiddenMode": "FIRST_20_RUNS", "runListHidden": True})
    mine = {WORKFLOW_KEY: json.dumps("genai"), VIEW_KEY: saved_view}
    seen = _in_a_browser(mine, "#/experiments/3/runs", [VIEW_KEY])
    assert seen["replaced"] == []
    assert seen["stored"][WORKFLOW_KEY] == json.dumps("genai")
    assert seen["read"][VIEW_KEY] == saved_view
    assert _in_a_browser({}, "#/", [])["replaced"] == ["#/experiments"]


def test_every_default_names_what_this_mlflow_ui_reads() -> None:
    from mlflow.server import app as flask_app

    bundle = "".join(
        path.read_text(encoding="utf-8", errors="replace")
        for path in (Path(str(flask_app.static_folder)) / "static" / "js").glob("*.js")
    )
    assert "`${e}_v${t}`" in bundle  # how MLflow's useLocalStorage names a key
    for key in BROWSER_DEFAULTS:
        base = re.sub(r"_v\d+$", "", key)
        assert f'"{base}"' in bundle, f"MLflow's UI no longer reads {base!r}"
    for word in ('"MLflowLocalStorage"', '"ReactComponentState"', '"ExperimentPage"'):
        assert word in bundle
    assert "runsHiddenMode" in bundle
    assert 'SHOWALL="SHOW_ALL"' in bundle
    assert '"/experiments"' in bundle  # the experiment list's route


def test_the_bare_address_opens_the_project_s_experiment(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the experiment `thinkpath experiments ui` picked, the bare address opens its runs;
    any other address, and a user's own choices, are left alone."""
    monkeypatch.setenv(HOME_EXPERIMENT_VARIABLE, "7")
    create_app()
    from mlflow.server import app as flask_app

    try:
        page = flask_app.test_client().get("/").get_data(as_text=True)
    finally:
        monkeypatch.delenv(HOME_EXPERIMENT_VARIABLE)
        create_app()  # the page as the other tests see it
    project = "#/experiments/7?workflowType=machine_learning"
    assert _in_a_browser({}, "", [], page)["replaced"] == [project]
    assert _in_a_browser({}, "#/", [], page)["replaced"] == [project]
    assert _in_a_browser({}, "#/experiments", [], page)["replaced"] == []  # the list, asked for
    mine = {WORKFLOW_KEY: json.dumps("genai")}
    assert _in_a_browser(mine, "", [], page)["stored"][WORKFLOW_KEY] == json.dumps("genai")
    assert index_page("<head></head>", "7; alert(1)").count("#/experiments/7") == 0


def test_an_experiment_seen_first_opens_out_its_newest_parent_run() -> None:
    """The contenders are child runs: folded, the chart view drew the parent's metrics alone."""
    page = index_page("<head></head>", "3", {"3": "a1b2", "4": "c3d4"})
    seen = _in_a_browser({}, "#/experiments/3", [VIEW_KEY], page)
    assert json.loads(seen["read"][VIEW_KEY])["runsExpanded"] == {"a1b2": True}
    both = 'MLflowLocalStorage-1.1-ExperimentPage-["3","4"]-ReactComponentState'
    view = json.loads(_in_a_browser({}, "", [both], page)["read"][both])
    assert view == {"runsHiddenMode": "SHOW_ALL", "runsExpanded": {"a1b2": True, "c3d4": True}}
    # a view the user has saved keeps what they opened and folded
    saved = json.dumps({"runsExpanded": {}})
    assert _in_a_browser({VIEW_KEY: saved}, "", [VIEW_KEY], page)["read"][VIEW_KEY] == saved
    assert "</script><b>" not in index_page("<head></head>", None, {"3": "</script><b>"})


def test_the_newest_parent_is_read_from_the_store(tmp_path: Path) -> None:
    from engine.adapters.tracking import TrackingStore, default_tracking_uri

    store = TrackingStore(default_tracking_uri(tmp_path), tmp_path / "mlartifacts")
    with (
        store.start_run("thinkpath-first", "older") as older,
        store.start_run("thinkpath-first", "a", {}, {}, parent=older),
    ):
        pass
    time.sleep(0.01)  # start times are in milliseconds: no tie between the two invocations
    with (
        store.start_run("thinkpath-first", "newer") as newer,
        store.start_run("thinkpath-first", "b", {}, {}, parent=newer),
    ):
        pass
    with store.start_run("thinkpath-live", "service"):  # not nested: nothing to open out
        pass
    first = store.experiment_id("thinkpath-first")
    assert newest_parents(store.client) == {first: newer.run_id}
