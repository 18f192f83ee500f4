"""`thinkpath experiments ...`: bad input fails before any work; a run lands in the store."""

import re
import time
from pathlib import Path

import pytest

from engine.adapters.tracking import TrackingStore
from ui.cli import main
from ui.experiment_commands import mlflow_ui_command, mlflow_ui_environment


def test_list_shows_every_experiment(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["experiments", "list"]) == 0
    names = {line.split()[0] for line in capsys.readouterr().out.splitlines()}
    assert {"stationary-bernoulli", "drift-abrupt", "contextual", "replay", "ope"} <= names


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["nope"], "unknown experiment 'nope'"),
        (["stationary-bernoulli", "--set", "policies=bogus"], "bogus"),
        (["stationary-bernoulli", "--set", "seeds"], "KEY=VALUE"),
        (["ope", "--tracking-uri", "http://127.0.0.1:9"], "unreachable"),
    ],
)
def test_bad_input_is_refused_before_any_work(
    arguments: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    assert main(["experiments", "run", *arguments, "--home", str(home)]) == 2
    assert message in capsys.readouterr().err
    assert not (home / "mlflow.db").exists()  # no store was created, so no run either


def test_a_quick_run_lands_in_the_store(
    store: TrackingStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "experiments", "run", "ope", "--quick", "--no-progress",
            "--home", str(tmp_path), "--tracking-uri", store.tracking_uri,
        ]
    )  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out
    assert "| doubly_robust |" in out
    found = re.search(r"MLflow run (\w+)", out)
    assert found is not None
    run = store.client.get_run(found.group(1))
    assert run.info.status == "FINISHED"
    assert run.data.params["quick"] == "True"
    assert run.data.params["scenarios"] == "20"


def test_the_ui_serves_the_store_on_localhost_only(tmp_path: Path) -> None:
    from mlflow.server.constants import ARTIFACT_ROOT_ENV_VAR, BACKEND_STORE_URI_ENV_VAR

    command = mlflow_ui_command(5001)
    assert command[command.index("--host") + 1] == "127.0.0.1"
    assert command[command.index("--port") + 1] == "5001"
    assert command[command.index("--workers") + 1] == "1"
    assert command[-1] == "experiments.mlflow_ui:create_app"
    environment = mlflow_ui_environment("sqlite:///x/mlflow.db", tmp_path / "art")
    assert environment[BACKEND_STORE_URI_ENV_VAR] == "sqlite:///x/mlflow.db"
    assert environment[ARTIFACT_ROOT_ENV_VAR] == (tmp_path / "art").resolve().as_uri()
    assert environment["MLFLOW_DISABLE_TELEMETRY"] == "true"


def test_the_ui_refuses_a_bad_port(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["experiments", "ui", "--port", "70000", "--home", str(tmp_path)]) == 2
    assert "bad port" in capsys.readouterr().err


def test_the_ui_opens_on_the_experiment_with_the_latest_run(tmp_path: Path) -> None:
    """The bare address opens the project's experiment (the latest run's), not the list."""
    from engine.adapters.tracking import default_tracking_uri
    from engine.settings import load_settings
    from experiments.mlflow_ui import HOME_EXPERIMENT_VARIABLE, index_page
    from ui.experiment_commands import _experiments

    uri = default_tracking_uri(tmp_path)
    store = TrackingStore(uri, tmp_path / "mlartifacts")
    for name in ("thinkpath-older", "thinkpath-latest"):
        with store.start_run(name, "run"):
            time.sleep(0.01)  # MLflow keeps start times in milliseconds
    store.experiment_id("thinkpath-empty")  # no run: nothing to open
    found = _experiments(load_settings(home=tmp_path), uri)
    assert [name for name, _id in found] == ["thinkpath-latest", "thinkpath-older"]
    latest = found[0][1]
    environment = mlflow_ui_environment(uri, tmp_path / "art", home_experiment=latest)
    assert environment[HOME_EXPERIMENT_VARIABLE] == latest
    assert HOME_EXPERIMENT_VARIABLE not in mlflow_ui_environment(uri, tmp_path / "art")
    page = index_page("<html><head></head></html>", latest)
    assert f'location.replace("#/experiments/{latest}?workflowType=machine_learning")' in page
