"""`thinkpath serve`: where the token may come from, bind checks, `--track` logs decisions."""

import argparse
import asyncio
import secrets
import socket
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.types import Message, Receive, Scope, Send

from engine.errors import ConfigError
from ui.cli import main
from ui.serve import ServiceSettings, build_engine_for, load_service_settings
from ui.service.api import create_api
from ui.service.replies import send_response
from ui.service.security import MIN_TOKEN_BITS, check_token, token_bits


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
    monkeypatch.setenv("THINKPATH_API_TOKEN", "an-env-token-0123456789")
    assert service_token(load_service_settings(serve_args())) == "an-env-token-0123456789"
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


def forwarded_client(
    monkeypatch: pytest.MonkeyPatch,
    trusted: str | None,
    forwarded_for: bytes = b"203.0.113.9",
    *,
    scheme: list[str] | None = None,
) -> str:
    """The client address the app sees behind uvicorn for a loopback peer that sends
    X-Forwarded-For (`forwarded_for`, comma-separated lines) and Forwarded naming another
    address; `scheme`, when given, collects the request's scheme."""
    import uvicorn

    from ui.serve import server_config

    if trusted is None:
        monkeypatch.delenv("THINKPATH_TRUSTED_PROXIES", raising=False)
    else:
        monkeypatch.setenv("THINKPATH_TRUSTED_PROXIES", trusted)
    monkeypatch.setattr(uvicorn.Config, "configure_logging", lambda _self: None)
    seen: list[str] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        seen.append(scope["client"][0])
        if scheme is not None:
            scheme.append(scope["scheme"])
        await send_response(send, 200, b"", b"text/plain")

    config = server_config(app, load_service_settings(serve_args()))
    config.load()
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": "/",
        "raw_path": b"/",
        "query_string": b"",
        "root_path": "",
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8765),
        "headers": [
            (b"host", b"localhost"),
            *((b"x-forwarded-for", line) for line in forwarded_for.split(b"\n")),
            (b"x-forwarded-proto", b"https"),
            (b"forwarded", b"for=198.51.100.7"),
        ],
    }

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(_: Message) -> None:
        return None

    asyncio.run(config.loaded_app(scope, receive, send))
    return seen[0]


def test_forwarded_headers_are_believed_only_from_a_trusted_proxy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # uvicorn's own default believes X-Forwarded-For from 127.0.0.1: a local process could pick
    # the address the back-off counts.
    assert forwarded_client(monkeypatch, None) == "127.0.0.1"
    assert forwarded_client(monkeypatch, "10.0.0.2") == "127.0.0.1"  # not this peer
    assert forwarded_client(monkeypatch, "127.0.0.0/8") == "203.0.113.9"


@pytest.mark.parametrize(
    ("forwarded_for", "client"),
    [
        # Not an address: the peer keeps its own, so no header picks a back-off identity.
        (b"garbage-1", "127.0.0.1"),
        (b"garbage-2, 127.0.0.1", "127.0.0.1"),
        (b"203.0.113.9, garbage-3", "127.0.0.1"),
        (b"203.0.113.9:443", "127.0.0.1"),
        (b"", "127.0.0.1"),
        # The rightmost entry no trusted proxy holds; what the client wrote left of it is not read.
        (b"garbage-4, 198.51.100.7", "198.51.100.7"),
        (b"10.9.9.9, 198.51.100.7, 127.0.0.1", "198.51.100.7"),
        (b" 2001:db8::7 ", "2001:db8::7"),
        # Two header lines are one list: the proxy's own line is read, not the client's.
        (b"10.9.9.9\n198.51.100.7", "198.51.100.7"),
        (b"127.0.0.2, 127.0.0.1", "127.0.0.1"),  # all trusted: the peer itself
    ],
)
def test_a_forwarded_address_is_believed_only_where_it_is_one(
    monkeypatch: pytest.MonkeyPatch, forwarded_for: bytes, client: str
) -> None:
    assert forwarded_client(monkeypatch, "127.0.0.0/8", forwarded_for) == client


def test_the_forwarded_scheme_is_believed_only_from_a_trusted_proxy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    schemes: list[str] = []
    forwarded_client(monkeypatch, "127.0.0.0/8", scheme=schemes)
    forwarded_client(monkeypatch, "10.0.0.2", scheme=schemes)
    assert schemes == ["https", "http"]


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("THINKPATH_CORS_ORIGINS", "*", "'*' is refused: list each origin"),
        ("THINKPATH_CORS_ORIGINS", "http://a.test,null", "'null' is refused"),
        ("THINKPATH_CORS_ORIGINS", "https://*.a.test", "is not an origin"),
        ("THINKPATH_CORS_ORIGINS", "a.test", "is not an origin"),
        ("THINKPATH_CORS_ORIGINS", "https://a.test/app", "is not an origin"),
        ("THINKPATH_TRUSTED_PROXIES", "*", "'\\*' is refused"),
        ("THINKPATH_TRUSTED_PROXIES", "proxy.lan", "not an IP address or network"),
    ],
)
def test_a_wildcard_or_malformed_origin_or_proxy_is_refused_before_listening(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    variable: str,
    value: str,
    message: str,
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigError, match=message):
        load_service_settings(serve_args())
    assert main(["serve", "--scripted-model"]) == 1  # the command stops before it listens
    assert variable in capsys.readouterr().err


def test_exact_origins_are_kept() -> None:
    settings = ServiceSettings(cors_origins=["https://app.example.org/", "http://localhost:3000"])
    assert settings.cors_origins == ["https://app.example.org", "http://localhost:3000"]


@pytest.mark.parametrize(
    "token", ["a" * 16, "ab" * 8, "aaaaaaaabbbbbbbb", "0" * 15 + "1", "abab" * 10, "abc" * 30]
)
def test_a_repetitive_token_is_refused_however_long(
    monkeypatch: pytest.MonkeyPatch, token: str
) -> None:
    from ui.serve import service_token

    monkeypatch.setenv("THINKPATH_API_TOKEN", token)
    with pytest.raises(ConfigError, match="repeats too few characters") as caught:
        service_token(load_service_settings(serve_args()))
    assert "secrets.token_urlsafe" in str(caught.value)
    assert token not in str(caught.value)


def test_serve_stops_on_a_repetitive_token(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("THINKPATH_API_TOKEN", "a" * 16)
    assert main(["serve", "--scripted-model"]) == 1
    assert "repeats too few characters" in capsys.readouterr().err


def test_generated_tokens_pass_the_entropy_floor() -> None:
    for _ in range(200):  # what the error message recommends, and a short hex token
        check_token(secrets.token_urlsafe(32))
        check_token(secrets.token_hex(8))
    assert token_bits("0123456789abcdef") == MIN_TOKEN_BITS * 2


def test_the_engine_comes_back_only_once_its_model_is_loaded_beside_the_playground_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The model loads on a thread while `meanwhile` (the playground import) runs here, and
    the engine is handed over only after the load, so health's 200 means it can answer."""
    import threading

    from engine import compose
    from engine.adapters.llm.local_chat import LocalChat
    from engine.adapters.llm.local_model import LocalModels
    from engine.adapters.llm.local_settings import LocalModelSettings

    monkeypatch.setenv("THINKPATH_HOME", str(tmp_path))
    monkeypatch.setenv("THINKPATH_STORE_URL", "memory")
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF")
    load_started, meanwhile_done = threading.Event(), threading.Event()
    loaded: list[Path] = []

    def loader(path: Path, settings: LocalModelSettings) -> object:
        load_started.set()
        assert meanwhile_done.wait(10), "the playground import never ran beside the load"
        loaded.append(path)
        return object()

    chat = LocalChat(f"local/{gguf}", LocalModels(loader=loader))  # type: ignore[arg-type]
    monkeypatch.setattr(compose, "build_models", lambda settings: compose.single_model(chat))

    def meanwhile() -> None:
        assert load_started.wait(10), "the model did not load while the playground imported"
        meanwhile_done.set()

    engine, _ = build_engine_for(serve_args(scripted_model=False), meanwhile=meanwhile)
    assert loaded == [gguf.resolve()]
    assert engine is not None


def test_the_playground_is_built_without_the_libraries_only_drawing_needs() -> None:
    """matplotlib, scipy.stats and litellm cost seconds at start-up; the app needs none of them
    until a figure is drawn (or a hosted model called); `load_figure_libraries` loads them."""
    import subprocess
    import sys

    heavy = "('matplotlib', 'scipy.stats', 'litellm')"
    probe = (
        "import sys, ui.service.app, engine.compose;"
        f"print(sorted(set({heavy}) & set(sys.modules)));"
        "from ui.playground.figures import load_figure_libraries; load_figure_libraries();"
        f"print(sorted(set({heavy}) & set(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["[]", "['matplotlib', 'scipy.stats']"]


def test_a_model_that_cannot_load_fails_the_start_not_the_first_question(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine import compose
    from engine.adapters.llm.local_chat import LocalChat
    from engine.adapters.llm.local_model import LocalModels
    from engine.adapters.llm.local_settings import LocalModelSettings
    from engine.errors import LLMUnavailableError

    monkeypatch.setenv("THINKPATH_HOME", str(tmp_path))
    monkeypatch.setenv("THINKPATH_STORE_URL", "memory")
    gguf = tmp_path / "broken.gguf"
    gguf.write_bytes(b"not a model")

    def loader(path: Path, settings: LocalModelSettings) -> object:
        raise LLMUnavailableError(f"llama.cpp could not load {path}")

    chat = LocalChat(f"local/{gguf}", LocalModels(loader=loader))  # type: ignore[arg-type]
    monkeypatch.setattr(compose, "build_models", lambda settings: compose.single_model(chat))
    with pytest.raises(LLMUnavailableError, match=r"could not load .*broken\.gguf"):
        build_engine_for(serve_args(scripted_model=False))


def test_the_engine_is_handed_out_only_once_what_a_first_answer_loads_is_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The start-up (health "starting") waits for `compose.warm_up`: a fresh service's first unit
    # question waited 25 s for the unit libraries, with no model call, when they loaded on use.
    from engine import compose

    monkeypatch.setenv("THINKPATH_HOME", str(tmp_path))
    monkeypatch.setenv("THINKPATH_STORE_URL", "memory")
    events: list[tuple[str, object]] = []
    build_engine = compose.build_engine

    def warm_up(settings: object, embedder: object) -> None:
        events.append(("warm_up", embedder))

    def built(*args: object, **kwargs: object) -> object:
        events.append(("build_engine", kwargs["embedder"]))
        return build_engine(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(compose, "warm_up", warm_up)
    monkeypatch.setattr(compose, "build_engine", built)
    build_engine_for(serve_args())
    # Warmed first, and the engine decides with the very embedder that was warmed.
    assert [name for name, _ in events] == ["warm_up", "build_engine"]
    assert events[0][1] is events[1][1]
