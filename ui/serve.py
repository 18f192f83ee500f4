"""`thinkpath serve`: one process on the embedded defaults, serving the API and the playground.

thinkpath serve                          # http://127.0.0.1:8765/ (playground) and /api/v1
thinkpath serve --host 10.0.0.5 --token-file ~/.thinkpath/token
THINKPATH_API_TOKEN=... THINKPATH_ALLOWED_HOSTS=thinkpath.lan thinkpath serve --host 0.0.0.0

It listens at once and loads the model, the index and the playground in the background: until
they are loaded, /api/v1/health answers 503 "starting" (see `ui.service.starting`). The model
file and the index load on threads beside the playground's imports (`build_engine_for`), and
what only drawing needs (matplotlib, scipy.stats) loads after the service is ready. The guards
(Host, token, body limits; `ui.service.guard_stack`) sit outside that too, so they hold from the
first byte the server answers.
The token comes from THINKPATH_API_TOKEN or a file (THINKPATH_API_TOKEN_FILE, --token-file), never
from the command line, where every user of the machine can read it in `ps`.

X-Forwarded-For is not believed from anyone unless THINKPATH_TRUSTED_PROXIES names the proxy:
uvicorn by default believes it from 127.0.0.1, so any local process could pick the address the
back-off counts (escaping it, or locking someone else out). From a named proxy, only its rightmost
untrusted entry is read, and only when it is an IP address (`ui.service.forwarded`).
"""

import argparse
import ipaddress
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from engine.errors import ConfigError
from engine.settings import NameList
from ui.service.limits import MAX_BODY_BYTES

if TYPE_CHECKING:
    import uvicorn

    from engine import Engine
    from ui.service.auth import Access


class ServiceSettings(BaseSettings):
    """The service's own settings, `THINKPATH_<NAME>` in the environment; flags win."""

    model_config = SettingsConfigDict(env_prefix="THINKPATH_", extra="ignore", frozen=True)

    host: str = "127.0.0.1"
    port: int = Field(default=8765, ge=1, le=65535)
    api_token: SecretStr | None = None
    api_token_file: Path | None = None
    cors_origins: NameList = Field(default_factory=list)  # comma-separated in the environment
    # Host names the service answers to; empty means loopback names plus a named --host.
    allowed_hosts: NameList = Field(default_factory=list)
    max_body_bytes: int = Field(default=MAX_BODY_BYTES, ge=1024, le=16 * 1024 * 1024)
    # Addresses or networks of reverse proxies whose X-Forwarded-For / -Proto is believed;
    # empty (the default): none, not even loopback.
    trusted_proxies: NameList = Field(default_factory=list)

    @field_validator("cors_origins", "allowed_hosts", "trusted_proxies", mode="before")
    @classmethod
    def _split_commas(cls, value: object) -> object:
        if isinstance(value, str):
            return [item.strip() for item in value.split(",") if item.strip()]
        return value

    @field_validator("cors_origins")
    @classmethod
    def _exact_origins(cls, origins: list[str]) -> list[str]:
        return [_exact_origin(origin) for origin in origins]

    @field_validator("trusted_proxies")
    @classmethod
    def _proxy_networks(cls, proxies: list[str]) -> list[str]:
        for proxy in proxies:
            try:
                ipaddress.ip_network(proxy, strict=False)
            except ValueError:
                raise ValueError(
                    f"{proxy!r} is not an IP address or network; name each proxy by its "
                    "address (e.g. '10.0.0.2' or '10.0.0.0/24'); '*' is refused, since it would "
                    "let any client choose its own address"
                ) from None
        return proxies


def _exact_origin(origin: str) -> str:
    """`scheme://host[:port]`, exactly: a wildcard would let every site read the API's answers."""
    if origin in ("*", "null"):
        raise ValueError(
            f"{origin!r} is refused: list each origin that may call the API from a browser, "
            "e.g. 'https://app.example.org,http://localhost:3000'"
        )
    try:
        parts = urlsplit(origin.rstrip("/"))
        port_ok = parts.port is None or parts.port > 0
    except ValueError:
        port_ok = False
    if not (
        port_ok
        and parts.scheme in ("http", "https")
        and parts.hostname
        and "*" not in origin
        and not (parts.path or parts.query or parts.fragment or parts.username)
    ):
        raise ValueError(
            f"{origin!r} is not an origin: write scheme://host[:port], e.g. 'https://app.example.org'"
        )
    return origin.rstrip("/")


def register(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    serve = commands.add_parser(
        "serve",
        help="serve the REST API and the Gradio playground",
        description="Serve the REST API (/api/v1, OpenAPI at /docs), the OpenAI-compatible "
        "endpoint (/v1) and the Gradio playground (/).",
    )
    serve.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default 8765)")
    serve.add_argument(
        "--token-file",
        type=Path,
        help="file holding the API token, required to bind beyond loopback "
        "(or THINKPATH_API_TOKEN_FILE, or THINKPATH_API_TOKEN)",
    )
    # Kept only to refuse it with a pointer: a token in argv shows in `ps` to every local user.
    serve.add_argument("--token", help=argparse.SUPPRESS)
    serve.add_argument(
        "--scripted-model",
        action="store_true",
        help="answer with an instant scripted stand-in instead of a language model (demos, tests)",
    )
    serve.add_argument(
        "--scripted-delay",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="make each scripted model call take this long, to watch progress (0 to 10)",
    )
    serve.add_argument(
        "--track",
        action="store_true",
        help="log live decisions and outcomes to MLflow (the store in THINKPATH_HOME)",
    )
    serve.set_defaults(run=run_serve)


def load_service_settings(args: argparse.Namespace) -> ServiceSettings:
    if getattr(args, "token", None) is not None:
        raise ConfigError(
            "--token is refused: a token on the command line shows in `ps` to every user of "
            "this machine; put it in a file and pass --token-file FILE, or set "
            "THINKPATH_API_TOKEN_FILE or THINKPATH_API_TOKEN"
        )
    given = {"host": args.host, "port": args.port, "api_token_file": args.token_file}
    overrides = {key: value for key, value in given.items() if value is not None}
    try:
        return ServiceSettings(**overrides)
    except ValidationError as error:
        problems = "; ".join(
            f"invalid setting THINKPATH_{str(e['loc'][0]).upper() if e['loc'] else ''}: "
            + e["msg"].removeprefix("Value error, ")
            for e in error.errors()
        )
        raise ConfigError(problems) from None


def service_token(service: ServiceSettings) -> str | None:
    """The API token from the environment or the token file (not both), checked for strength."""
    from ui.service.security import check_token, read_token_file  # noqa: PLC0415

    if service.api_token is not None and service.api_token_file is not None:
        raise ConfigError(
            "set THINKPATH_API_TOKEN or a token file (THINKPATH_API_TOKEN_FILE, --token-file), "
            "not both"
        )
    if service.api_token_file is not None:
        return read_token_file(service.api_token_file)
    if service.api_token is None:
        return None
    token = service.api_token.get_secret_value()
    check_token(token)
    return token


def allowed_hosts(service: ServiceSettings) -> list[str]:
    """The Host names to answer: as configured, else loopback's and the bound address's."""
    from ui.service.guards import DEFAULT_ALLOWED_HOSTS  # noqa: PLC0415
    from ui.service.security import WILDCARD_HOSTS  # noqa: PLC0415

    if service.allowed_hosts:
        return list(service.allowed_hosts)
    bound = [] if service.host in WILDCARD_HOSTS else [service.host]
    return list(dict.fromkeys([*DEFAULT_ALLOWED_HOSTS, *bound]))


def build_engine_for(
    args: argparse.Namespace,
    report: Callable[[str], None] = lambda _what: None,
    *,
    meanwhile: Callable[[], None] = lambda: None,
) -> tuple["Engine", ServiceSettings]:
    """The engine the service drives, and the service's settings, checked before anything slow.

    The model file and the search index load on two threads while `meanwhile` runs on this one
    (the service imports the playground's libraries there): llama.cpp and onnxruntime do their
    work without the GIL, so the three overlap instead of adding up. Then what a first answer
    would otherwise load while its user waits loads here (`compose.warm_up`: the exact tools'
    libraries, the embedder's session). The engine is returned only once all of it is loaded,
    so the first decision waits for none of it. `report` hears what is loading next (the
    background start-up shows it on health).
    """
    from engine import compose  # noqa: PLC0415 - heavy imports only when serving
    from engine.settings import load_settings  # noqa: PLC0415
    from ui.service.security import check_bind  # noqa: PLC0415

    service = load_service_settings(args)
    check_bind(service.host, service_token(service), service.allowed_hosts)
    settings = load_settings()
    if args.scripted_model:
        models = compose.single_model(compose.build_scripted_llm(args.scripted_delay))
    else:
        models = compose.build_models(settings)
    # Leaving the block waits for both threads, even when something here failed first.
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="thinkpath-load") as pool:
        model_loaded = pool.submit(compose.load_models, models)
        searcher_built = pool.submit(compose.build_searcher, settings)
        meanwhile()
        report("the search index")
        searcher = searcher_built.result()
        # What a first answer would otherwise load while its user waits (the exact tools'
        # libraries, the embedder's session), so health stays "starting" until it is loaded.
        # On this thread, after `meanwhile`: Python work gains nothing from a thread of its own
        # (the GIL), and the units' libraries rewrite code through `ast` (inflect's typeguard),
        # which CPython 3.11 cannot do on two threads at once ("AST constructor recursion depth
        # mismatch" stopped a start that loaded them beside the playground's imports).
        report("the exact tools' libraries and the embedder")
        embedder = compose.build_embedder(settings)
        compose.warm_up(settings, embedder)
        report("the store and the learning state")
        tracker = compose.build_tracker(settings) if args.track else None
        engine = compose.build_engine(
            settings, models=models, searcher=searcher, tracker=tracker, embedder=embedder
        )
        report("the language models")
        model_loaded.result()
    return engine, service


def build_app(
    args: argparse.Namespace,
    report: Callable[[str], None] = lambda _what: None,
    *,
    access: "Access",
) -> tuple[object, ServiceSettings]:
    """The ASGI app (API + playground), without the guards, and the settings it was built from.

    The caller puts the guards (`ui.service.guard_stack.Guards`, with this `access`) around it.
    """

    def import_playground() -> None:
        report("the playground (the language model and the search index load beside it)")
        import ui.service.app  # noqa: F401, PLC0415 - gradio: seconds, overlapping the model load

    engine, service = build_engine_for(args, report, meanwhile=import_playground)
    report("the playground")
    from ui.service.app import create_app  # noqa: PLC0415 - imported above, while loading

    app = create_app(engine, access=access, guarded=False)
    # The figures' libraries were left out of the start (`ui.playground.figures`); loading them
    # now, while the first requests are answered, spares the first question on the playground.
    from ui.playground.figures import load_figure_libraries  # noqa: PLC0415

    threading.Thread(target=load_figure_libraries, name="thinkpath-figures", daemon=True).start()
    return app, service


def server_config(app: Any, service: ServiceSettings) -> "uvicorn.Config":
    """uvicorn's settings: forwarded headers believed only from THINKPATH_TRUSTED_PROXIES."""
    import uvicorn  # noqa: PLC0415

    from ui.service.forwarded import TrustedProxyHeaders  # noqa: PLC0415

    trusted = list(service.trusted_proxies)
    return uvicorn.Config(
        # Ours, not uvicorn's: it believes an X-Forwarded-For entry only where it is an address.
        TrustedProxyHeaders(app, trusted) if trusted else app,
        host=service.host,
        port=service.port,
        log_level="info",
        # uvicorn's default believes X-Forwarded-For from 127.0.0.1: off, always (see above).
        proxy_headers=False,
        forwarded_allow_ips=[],
    )


def run_serve(args: argparse.Namespace) -> int:
    """Check the settings, listen at once, and build the engine and the app in the background.

    The health check answers within a second or two ("starting", then "ok"); see
    `ui.service.starting`. A bad setting still fails here, before anything listens.
    """
    # Set before gradio is imported: it reads these at import time.
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import uvicorn  # noqa: PLC0415

    from engine.settings import load_settings  # noqa: PLC0415
    from ui.service.auth import Access  # noqa: PLC0415
    from ui.service.guard_stack import Guards  # noqa: PLC0415
    from ui.service.security import check_bind  # noqa: PLC0415
    from ui.service.starting import StartingApp  # noqa: PLC0415

    service = load_service_settings(args)
    token = service_token(service)
    check_bind(service.host, token, service.allowed_hosts)
    load_settings()  # a bad THINKPATH_ setting is an error now, not in the background
    access = Access(token)
    guards = Guards(access, service.max_body_bytes, service.cors_origins, allowed_hosts(service))
    failures: list[BaseException] = []
    server: uvicorn.Server | None = None

    def build(report: Callable[[str], None]) -> Any:
        app, _ = build_app(args, report, access=access)
        print("ThinkPath is ready", flush=True)
        return app

    def stop(error: BaseException) -> None:
        failures.append(error)
        print(f"error: ThinkPath could not start: {error}", file=sys.stderr, flush=True)
        if server is not None:
            server.should_exit = True

    app = StartingApp(build, on_failure=stop)
    # The guards go around the starting app, so they hold before the real app exists.
    server = uvicorn.Server(server_config(guards.wrap(app), service))
    print(
        f"ThinkPath listening on http://{service.host}:{service.port}/ (API: /api/v1, "
        "docs: /docs, OpenAI-compatible: /v1); loading the model and the index in the background",
        flush=True,
    )
    if token is not None:
        print("Every request needs the token: 'Authorization: Bearer <token>', or log in at /login")
    app.start()
    server.run()
    return 1 if failures else 0
