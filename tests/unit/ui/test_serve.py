"""`thinkpath serve`: where the token may come from, bind checks, `--track` logs decisions."""

import argparse
import socket
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from engine.errors import ConfigError
from ui.cli import main
from ui.serve import build_engine_for, load_service_settings
from ui.service.api import create_api


def serve_args(**overrides: object) -> argparse.Namespace:
    values: dict[str, object] = {
        "host": None,
        "port": None,
        "token": None,
        "token_file": None,
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
    assert "scripted model's delay must be 0 to 10 s, got 11" in capsys.readouterr().err


def test_track_logs_live_decisions_to_mlflow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("THINKPATH_HOME", str(tmp_path))
    monkeypatch.setenv("THINKPATH_STORE_URL", "memory")
    engine, _ = build_engine_for(serve_args(track=True))
    with TestClient(create_api(engine), base_url="http://localhost") as api:
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


GOOD_TOKEN = "a-token-of-24-characters"


def test_a_token_on_the_command_line_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--token", GOOD_TOKEN, "--scripted-model"]) == 1
    error = capsys.readouterr().err
    assert "--token-file" in error
    assert GOOD_TOKEN not in error


def test_token_from_a_file_or_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ui.serve import service_token

    monkeypatch.delenv("THINKPATH_API_TOKEN", raising=False)
    token_file = tmp_path / "token"
    token_file.write_text(GOOD_TOKEN + "\n")
    settings = load_service_settings(serve_args(token_file=token_file))
    assert service_token(settings) == GOOD_TOKEN
    monkeypatch.setenv("THINKPATH_API_TOKEN", "x" * 16)
    assert service_token(load_service_settings(serve_args())) == "x" * 16
    with pytest.raises(ConfigError, match="not both"):
        service_token(load_service_settings(serve_args(token_file=token_file)))


def test_a_short_token_is_refused_with_how_to_make_one(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("THINKPATH_API_TOKEN", "t")
    monkeypatch.setenv("THINKPATH_ALLOWED_HOSTS", "thinkpath.lan")
    assert main(["serve", "--host", "0.0.0.0", "--scripted-model"]) == 1
    error = capsys.readouterr().err
    assert "at least 16" in error
    assert "secrets.token_urlsafe" in error


def test_every_address_needs_named_hosts(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("THINKPATH_API_TOKEN", GOOD_TOKEN)
    monkeypatch.delenv("THINKPATH_ALLOWED_HOSTS", raising=False)
    assert main(["serve", "--host", "0.0.0.0", "--scripted-model"]) == 1
    assert "THINKPATH_ALLOWED_HOSTS" in capsys.readouterr().err


def test_allowed_hosts_default_to_loopback_and_the_bound_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ui.serve import allowed_hosts

    monkeypatch.delenv("THINKPATH_ALLOWED_HOSTS", raising=False)
    assert allowed_hosts(load_service_settings(serve_args())) == ["localhost", "127.0.0.1", "::1"]
    named = allowed_hosts(load_service_settings(serve_args(host="10.0.0.5")))
    assert named[-1] == "10.0.0.5"
    monkeypatch.setenv("THINKPATH_ALLOWED_HOSTS", "a.lan, b.lan")
    assert allowed_hosts(load_service_settings(serve_args())) == ["a.lan", "b.lan"]
