"""`thinkpath experiments list | run NAME | ui`: the experiment toolkit on the command line.

This module is an entry point: it reads the settings (the data directory is `--home`, else
`THINKPATH_HOME`, default `~/.thinkpath`) and has the composition root build the tracking store
and, for replay, the model client; the experiments themselves take everything as arguments.
Bad input (an unknown experiment, policy or parameter, a bad setting, an unreachable tracking
URI) is reported before any work or any MLflow run starts.
"""

import argparse
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine import LLM
from engine.errors import ThinkPathError

if TYPE_CHECKING:
    from engine.settings import Settings

__all__ = ["mlflow_ui_command", "mlflow_ui_environment", "register", "runs_link"]

DEFAULT_UI_PORT = 5000


def runs_link(base_url: str, experiment_id: str) -> str:
    """The MLflow UI page of an experiment's runs (the training-runs view).

    MLflow 3 opens every experiment on its GenAI traces overview unless the link asks for the
    machine-learning workflow; ours are training-style runs, so every link we print asks.

    >>> runs_link("http://127.0.0.1:5000", "3")
    'http://127.0.0.1:5000/#/experiments/3?workflowType=machine_learning'
    """
    return f"{base_url.rstrip('/')}/#/experiments/{experiment_id}?workflowType=machine_learning"


def _settings(args: argparse.Namespace) -> "Settings":
    """The settings, with `--home` over `THINKPATH_HOME`."""
    from engine.settings import load_settings  # noqa: PLC0415

    return load_settings(home=args.home) if args.home else load_settings()


def _tracking(args: argparse.Namespace) -> tuple["Settings", str]:
    """The settings and the tracking URI: `--tracking-uri`, else the SQLite file in the home."""
    from engine import default_tracking_uri  # noqa: PLC0415

    settings = _settings(args)
    return settings, args.tracking_uri or default_tracking_uri(settings.data_dir)


def _progress_bars(enabled: bool) -> Callable[[int, str], Callable[[int], None]]:
    def factory(total: int, description: str) -> Callable[[int], None]:
        from tqdm import tqdm  # type: ignore[import-untyped]  # noqa: PLC0415

        bar = tqdm(total=total, desc=description, disable=not enabled, leave=False)

        def advance(done: int) -> None:
            bar.update(done)
            if bar.n >= total:
                bar.close()

        return advance

    return factory


def _llm_factory(settings: "Settings") -> Callable[[str], LLM]:
    """Model string -> a client from the composition root, with the settings' threads, context
    size and API base; `local/...` models run in this process."""

    def build(model: str) -> LLM:
        from engine.compose import build_llm  # noqa: PLC0415 - litellm takes seconds

        return build_llm(settings.model_copy(update={"model": model}))

    return build


def _list(args: argparse.Namespace) -> int:  # noqa: ARG001 - every command takes its args
    from experiments.registry import available_experiments  # noqa: PLC0415

    experiments = available_experiments()
    width = max(len(name) for name in experiments)
    for name, experiment in experiments.items():
        print(f"{name.ljust(width)}  {experiment.summary}")
    return 0


def _run(args: argparse.Namespace) -> int:
    from engine.compose import build_tracking_store  # noqa: PLC0415
    from experiments.experiment import ExperimentContext  # noqa: PLC0415
    from experiments.registry import get_experiment, parse_overrides, resolve_params  # noqa: PLC0415
    from experiments.runner import run_experiment  # noqa: PLC0415

    try:
        experiment = get_experiment(args.name)
        params = resolve_params(experiment, parse_overrides(args.set), quick=args.quick)
        settings, uri = _tracking(args)
        store = build_tracking_store(settings, uri=uri)
    except ThinkPathError as error:
        print(f"thinkpath experiments run: error: {error}", file=sys.stderr)
        return 2
    context = ExperimentContext(
        data_dir=settings.data_dir,
        progress=_progress_bars(not args.no_progress),
        llm_factory=_llm_factory(settings),
    )
    try:
        outcome = run_experiment(experiment, params, store, context, quick=args.quick)
    except KeyboardInterrupt:
        print("interrupted: the MLflow run is marked FAILED", file=sys.stderr)
        return 130
    except ThinkPathError as error:
        print(f"thinkpath experiments run: failed: {error}", file=sys.stderr)
        return 1
    print(next(iter(outcome.result.tables.values()), ""))
    print(f"MLflow run {outcome.run_id} in experiment {outcome.experiment_name!r} at {uri}")
    experiment_id = store.client.get_run(outcome.run_id).info.experiment_id
    base = f"http://127.0.0.1:{DEFAULT_UI_PORT}"
    print(f"See it: thinkpath experiments ui, then open {runs_link(base, experiment_id)}")
    return 0


def mlflow_ui_command(port: int) -> list[str]:
    """The UI server command: MLflow's app (`experiments.mlflow_ui`, which opens on the project)
    under uvicorn as `mlflow server` runs it, local only, one worker, stoppable with SIGTERM.

    The store and artifact root travel in `mlflow_ui_environment`, as MLflow passes them to its
    own workers.
    """
    return [
        sys.executable,
        "-m",
        "uvicorn",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        "1",
        "--factory",
        "experiments.mlflow_ui:create_app",
    ]


def mlflow_ui_environment(
    tracking_uri: str, artifact_root: Path, *, home_experiment: str | None = None
) -> dict[str, str]:
    """The UI server's environment: this one, the store, the experiment the bare address
    opens (`experiments.mlflow_ui.HOME_EXPERIMENT_VARIABLE`), and no phoning home (OFFLINE.md)."""
    from experiments.mlflow_ui import (  # noqa: PLC0415 - MLflow is slow
        HOME_EXPERIMENT_VARIABLE,
        server_environment,
    )

    opening = {HOME_EXPERIMENT_VARIABLE: home_experiment} if home_experiment else {}
    return {
        **{key: value for key, value in os.environ.items() if key != HOME_EXPERIMENT_VARIABLE},
        **server_environment(tracking_uri, artifact_root),
        **opening,
        "MLFLOW_DISABLE_TELEMETRY": "true",
        "MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false",
        "DO_NOT_TRACK": "1",
    }


def _ui(args: argparse.Namespace) -> int:
    settings, uri = _tracking(args)
    home = settings.data_dir
    if not 0 < args.port < 65536:
        print(f"thinkpath experiments ui: error: bad port {args.port}", file=sys.stderr)
        return 2
    command = mlflow_ui_command(args.port)
    (home / "mlartifacts").mkdir(parents=True, exist_ok=True)
    # Opening the store first also creates and migrates a new one before the server reads it.
    experiments = _experiments(settings, uri)
    opening = experiments[0] if experiments else None
    environment = mlflow_ui_environment(
        uri, home / "mlartifacts", home_experiment=opening[1] if opening else None
    )
    base = f"http://127.0.0.1:{args.port}"
    if opening is None:
        print(f"MLflow UI on {base} for {uri} (Ctrl-C stops it); no experiment has runs yet")
    else:
        print(f"MLflow UI on {base} for {uri} (Ctrl-C stops it); it opens on {opening[0]}:")
        print(f"  {runs_link(base, opening[1])}")
    for name, experiment_id in experiments[1:]:
        print(f"  {name}: {runs_link(base, experiment_id)}")
    server = subprocess.Popen(command, env=environment)  # our own argv, no shell
    # A SIGTERM to this process must stop the server too, not leave it orphaned.
    previous = signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        return server.wait()
    except (KeyboardInterrupt, SystemExit):
        return 0
    finally:
        signal.signal(signal.SIGTERM, previous)
        if server.poll() is None:
            server.terminate()
            server.wait(timeout=30)


def _experiments(settings: "Settings", uri: str) -> list[tuple[str, str]]:
    """(name, id) of each experiment in the store that has runs, the one with the latest run
    first (the project's: the UI opens on it), for links that open on their runs."""
    from engine.compose import build_tracking_store  # noqa: PLC0415 - MLflow is slow to import

    try:
        store = build_tracking_store(settings, uri=uri)
    except ThinkPathError as error:
        print(f"thinkpath experiments ui: warning: {error}", file=sys.stderr)
        return []
    latest = {}
    for experiment in store.client.search_experiments():
        runs = store.client.search_runs(
            [experiment.experiment_id], max_results=1, order_by=["attributes.start_time DESC"]
        )
        if runs:
            latest[(experiment.name, str(experiment.experiment_id))] = runs[0].info.start_time
    return sorted(latest, key=lambda named: latest[named], reverse=True)


def _exit_on_sigterm(signum: int, frame: object) -> None:  # noqa: ARG001 - signal handler
    raise SystemExit(0)


def register(subparsers: Any) -> None:
    """Add `experiments` and its subcommands to the `thinkpath` parser."""
    parser = subparsers.add_parser("experiments", help="run and browse tracked experiments")
    commands = parser.add_subparsers(dest="experiments_command", required=True, metavar="COMMAND")

    listing = commands.add_parser("list", help="list the experiments")
    listing.set_defaults(run=_list)

    run = commands.add_parser("run", help="run one experiment and log it to MLflow")
    run.add_argument("name", help="the experiment (see `thinkpath experiments list`)")
    run.add_argument("--quick", action="store_true", help="a small-scale run (seconds)")
    run.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a parameter, e.g. --set seeds=5 --set policies=thompson,ucb1",
    )
    run.add_argument("--no-progress", action="store_true", help="no progress bars")
    run.set_defaults(run=_run)

    ui = commands.add_parser("ui", help="start the MLflow UI on 127.0.0.1 on the tracking store")
    ui.add_argument("--port", type=int, default=DEFAULT_UI_PORT)
    ui.set_defaults(run=_ui)

    for command in (run, ui):
        command.add_argument("--home", help="data directory (default: $THINKPATH_HOME)")
        command.add_argument("--tracking-uri", help="MLflow tracking URI (default: SQLite in home)")
