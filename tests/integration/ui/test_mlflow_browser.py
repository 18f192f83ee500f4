"""The MLflow UI in headless Chromium: it opens on the project's experiment, quietly, with every
contender listed and charted in its own colour; a run is described by results.md.

A quick experiment is logged to a fresh SQLite store, MLflow's app serves it on loopback as
`thinkpath experiments ui` does (the experiment with the latest run is the project's), and
Chromium opens it as a user would: the bare address, a printed link, the experiment list.
"""

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from engine.adapters.tracking import TrackingStore, default_tracking_uri
from experiments.experiment import ExperimentContext
from experiments.registry import get_experiment, resolve_params
from experiments.runner import RunOutcome, run_experiment
from ui.experiment_commands import mlflow_ui_command, mlflow_ui_environment, runs_link
from ui.local_server import ServerNotReadyError, free_port, wait_until_healthy
from ui.mlflow_screenshots import CHARTED


@pytest.fixture(scope="module")
def logged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, RunOutcome, str]]:
    """(MLflow UI url, the experiment's outcome, its experiment id)."""
    home = tmp_path_factory.mktemp("mlflow-home")
    uri = default_tracking_uri(home)
    store = TrackingStore(uri, home / "mlartifacts")
    experiment = get_experiment("drift-abrupt")
    params = resolve_params(
        experiment,
        {"policies": "thompson,glr_thompson,random", "seeds": "2", "horizon": "200"},
    )
    outcome = run_experiment(experiment, params, store, ExperimentContext(home), quick=True)
    experiment_id = store.client.get_run(outcome.run_id).info.experiment_id
    port = free_port()
    log = (home / "mlflow.log").open("w")
    server = subprocess.Popen(
        mlflow_ui_command(port),
        env=mlflow_ui_environment(uri, home / "mlartifacts", home_experiment=experiment_id),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        try:
            wait_until_healthy(f"{url}/health", server, home / "mlflow.log", what="mlflow server")
        except ServerNotReadyError as error:
            pytest.fail(str(error))
        yield url, outcome, experiment_id
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:  # a busy machine: stop it for sure, not leave it
            server.kill()
            server.wait(timeout=30)
        log.close()


def test_an_experiment_opens_on_its_runs_with_the_results_as_description(
    logged: tuple[str, RunOutcome, str], browser: Browser, screenshots: Path
) -> None:
    url, outcome, experiment_id = logged
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(runs_link(url, experiment_id))
    # the training-runs view, not the GenAI traces overview ("No data available")
    expect(page.get_by_text("drift-abrupt-quick").first).to_be_visible(timeout=120_000)
    expect(page.get_by_text("matching runs").first).to_be_visible()
    expect(page.get_by_text("No data available")).to_have_count(0)
    page.screenshot(path=str(screenshots / "mlflow-runs.png"))

    run_page = f"{url}/#/experiments/{experiment_id}/runs/{outcome.run_id}"
    page.goto(f"{run_page}?workflowType=machine_learning")
    # the run's description is results.md: its table header and the contenders
    expect(page.get_by_text("regret - best").first).to_be_visible(timeout=120_000)
    expect(page.get_by_text("glr_thompson").first).to_be_visible()
    page.screenshot(path=str(screenshots / "mlflow-run-description.png"), full_page=True)


def test_mlflows_own_home_opens_an_experiment_on_its_runs(
    logged: tuple[str, RunOutcome, str], browser: Browser
) -> None:
    url, outcome, _ = logged
    context = browser.new_context(viewport={"width": 1400, "height": 1000})  # a fresh browser
    page = context.new_page()
    page.goto(f"{url}/#/experiments")
    page.get_by_role("link", name=outcome.experiment_name).first.click()
    expect(page.get_by_text("matching runs").first).to_be_visible(timeout=120_000)
    expect(page.get_by_text("No data available")).to_have_count(0)
    context.close()


def test_the_bare_address_opens_the_project_with_every_contender_charted(
    logged: tuple[str, RunOutcome, str], browser: Browser, screenshots: Path
) -> None:
    """Where the contenders were folded under their parent, the chart view drew the parent's
    own metrics alone, one line each: now each policy is a listed run with its own colour."""
    url, outcome, experiment_id = logged
    context = browser.new_context(viewport={"width": 1280, "height": 800})  # a fresh browser
    page = context.new_page()
    page.goto(url)
    expect(page.get_by_text("matching runs").first).to_be_visible(timeout=120_000)
    assert re.search(rf"#/experiments/{experiment_id}/runs\?", page.url), page.url
    for policy in ("thompson", "glr_thompson", "random"):
        expect(page.get_by_text(policy, exact=True).first).to_be_visible()
    expect(page.get_by_text("Information about UI telemetry")).to_have_count(0)
    # the assistant would have opened itself (and said so in this key) on a first load
    assert page.evaluate("localStorage.getItem('mlflow.assistant.panelOpen_v1')") in (None, "false")
    page.screenshot(path=str(screenshots / "mlflow-home.png"))
    key = f'MLflowLocalStorage-1.1-ExperimentPage-["{experiment_id}"]-ReactComponentState'
    view = json.loads(page.evaluate(f"localStorage.getItem({json.dumps(key)})"))
    assert view["runsHiddenMode"] == "SHOW_ALL"  # the chart view hides no run, baselines included
    assert view["runsExpanded"] == {outcome.run_id: True}
    page.goto(f"{page.url}&compareRunsMode=CHART")
    expect(page.get_by_text("cumulative_regret", exact=True).first).to_be_visible(timeout=120_000)
    page.locator(".js-plotly-plot path.js-line").first.wait_for(timeout=120_000)
    names, colours = page.evaluate(CHARTED)  # the first chart: cumulative_regret
    contenders = sorted(curve.label for curve in outcome.result.curves)  # peers included
    assert sorted(names) == contenders
    assert len(colours) == len(contenders)
    # the experiment list is one click away
    page.goto(f"{url}/#/experiments")
    expect(page.get_by_role("link", name=outcome.experiment_name).first).to_be_visible(
        timeout=120_000
    )
    context.close()
