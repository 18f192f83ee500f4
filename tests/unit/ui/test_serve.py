"""`thinkpath serve`: refuses an open bind without a token; `--track` logs live decisions."""

import argparse
import socket
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from ui.cli import main
from ui.serve import build_engine_for
from ui.service.api import create_api


def serve_args(**overrides: object) -> argparse.Namespace:
    values: dict[str, object] = {
        "host": None,
        "port": None,
        "token": None,
        "scripted_model": True,
        "scripted_delay": 0.0,
        "track": False,
    }
    return argparse.Namespace(**{**values, **overrides})


def test_open_bind_without_token_is_refused_before_anything_starts(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("THINKPATH_API_TOKEN", raising=False)
    assert main(["serve", "--host", "0.0.0.0", "--scripted-model"]) == 1
    assert "THINKPATH_API_TOKEN" in capsys.readouterr().err


def test_bad_port_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--port", "70000", "--scripted-model"]) == 1
    assert "THINKPATH_PORT" in capsys.readouterr().err


def test_a_scripted_delay_out_of_range_is_a_clear_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["serve", "--scripted-model", "--scripted-delay", "11"]) == 1
    assert "--scripted-delay must be 0 to 10 s" in capsys.readouterr().err


def test_track_logs_live_decisions_to_mlflow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("THINKPATH_HOME", str(tmp_path))
    monkeypatch.setenv("THINKPATH_STORE_URL", "memory")
    engine, _ = build_engine_for(serve_args(track=True))
    with TestClient(create_api(engine)) as api:
        decided = api.post("/api/v1/decisions", json={"query": "What is 2 + 3?"})
        assert decided.status_code == 201
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path / 'mlflow.db'}")
    experiment = client.get_experiment_by_name("thinkpath-live")
    assert experiment is not None
    runs = client.search_runs([experiment.experiment_id])
    assert len(runs) == 1
    assert runs[0].data.metrics  # the decision's propensities and counts were logged


def test_cors_origins_are_comma_separated(monkeypatch: pytest.MonkeyPatch) -> None:
    from ui.serve import load_service_settings

    monkeypatch.setenv("THINKPATH_CORS_ORIGINS", "http://a.test, http://b.test")
    settings = load_service_settings(serve_args())
    assert settings.cors_origins == ["http://a.test", "http://b.test"]


def test_a_failure_while_loading_in_the_background_stops_the_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("THINKPATH_HOME", str(tmp_path))
    monkeypatch.setenv("THINKPATH_STORE_URL", "memory")
    monkeypatch.setenv("THINKPATH_INDEX_FOLDERS", str(tmp_path / "missing"))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert main(["serve", "--scripted-model", "--port", str(port)]) == 1
    assert "could not start: cannot index" in capsys.readouterr().err
