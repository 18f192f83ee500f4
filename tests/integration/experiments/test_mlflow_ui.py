"""The UI app `thinkpath experiments ui` serves: MLflow's own, with the runs as the first view."""

from pathlib import Path

import pytest

from experiments.mlflow_ui import PREFERENCE_SCRIPT, WORKFLOW_KEY, create_app, index_page


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
    # only where the browser has no choice yet: a user's own switch is kept
    assert f"localStorage.getItem({WORKFLOW_KEY!r}".replace("'", '"') in index_response


def test_the_rest_of_the_page_is_mlflows_own(index_response: str) -> None:
    from mlflow.server import app as flask_app

    original = (Path(str(flask_app.static_folder)) / "index.html").read_text(encoding="utf-8")
    assert index_response.replace(PREFERENCE_SCRIPT, "", 1) == original


def test_a_page_without_a_head_is_served_as_it_is() -> None:
    assert index_page("<p>not MLflow</p>") == "<p>not MLflow</p>"
