"""Each experiment runs at small scale into a real MLflow store and is read back from it."""

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from mlflow.entities import Run

from engine.adapters.llm.scripted import ScriptedLLM
from engine.adapters.tracking import TrackingStore
from engine.domain.records import LLMRequest
from engine.errors import ConfigError
from experiments.experiment import Experiment, ExperimentContext, ExperimentResult
from experiments.ope_experiment import OPEParams
from experiments.plots import style_for
from experiments.registry import get_experiment, resolve_params
from experiments.runner import mlflow_experiment_name, run_experiment
from experiments.tasks import generate_suite


def _children(store: TrackingStore, parent: Run) -> dict[str, Run]:
    runs = store.client.search_runs(
        [parent.info.experiment_id], f"tags.mlflow.parentRunId = '{parent.info.run_id}'"
    )
    return {
        run.data.params["policy" if "policy" in run.data.params else "estimator"]: run
        for run in runs
        if "reference" not in run.data.params
    }


def _references(store: TrackingStore, parent: Run) -> dict[str, Run]:
    runs = store.client.search_runs(
        [parent.info.experiment_id], f"tags.mlflow.parentRunId = '{parent.info.run_id}'"
    )
    return {run.data.params["reference"]: run for run in runs if "reference" in run.data.params}


def _steps(store: TrackingStore, run: Run, metric: str) -> list[int]:
    return [point.step for point in store.client.get_metric_history(run.info.run_id, metric)]


def _artifacts(store: TrackingStore, run_id: str) -> set[str]:
    found: set[str] = set()
    pending: list[str | None] = [None]
    while pending:
        for info in store.client.list_artifacts(run_id, pending.pop()):
            (pending.append(info.path) if info.is_dir else found.add(info.path))
    return found


def test_a_simulator_experiment_logs_params_metrics_curves_and_artifacts(
    store: TrackingStore, home: Path
) -> None:
    experiment = get_experiment("drift-abrupt")
    params = resolve_params(
        experiment,
        {
            "policies": "thompson,glr_thompson,random",
            "peers": "numpy-ts",
            "seeds": "2",
            "horizon": "300",
        },
    )
    outcome = run_experiment(experiment, params, store, ExperimentContext(home), quick=True)
    parent = store.client.get_run(outcome.run_id)
    assert parent.info.status == "FINISHED"
    assert parent.data.params["policies"] == "thompson,glr_thompson,random"
    assert parent.data.params["horizon"] == "300"
    assert parent.data.tags["thinkpath.experiment"] == "drift-abrupt"
    assert parent.data.tags["winner"] in {"thompson", "glr_thompson", "numpy-ts"}
    children = _children(store, parent)
    assert set(children) == {"thompson", "glr_thompson", "random", "numpy-ts"}
    for name, child in children.items():
        assert child.info.status == "FINISHED"
        assert child.data.params["environment"] == "drift"
        history = store.client.get_metric_history(child.info.run_id, "cumulative_regret")
        steps = [point.step for point in history]
        assert steps == sorted(steps)
        assert steps[-1] == 300
        assert history[-1].value == pytest.approx(child.data.metrics["regret"])
        # the per-contender summary is one comparison figure and a CSV, not a scalar each
        assert f"regret.{name}".replace(":", "_") not in parent.data.metrics
    # a uniform random policy has to pay more regret than Thompson sampling here
    assert children["random"].data.metrics["regret"] > children["thompson"].data.metrics["regret"]
    # the parent charts nothing of its own (its lines were drawn alone, one chart each): the
    # contenders' curves are one chart per metric, one line per run, every run its own colour
    assert parent.data.metrics == {}
    regrets = {name: child.data.metrics["regret"] for name, child in children.items()}
    for child in children.values():
        assert child.data.params["step"] == "one decision of each policy"
        assert _steps(store, child, "cumulative_regret")[0] == 1  # no final value at step 0
    assert parent.data.params["step"] == "one decision of each policy"
    assert (
        "A chart's Step is one decision of each policy." in parent.data.tags["mlflow.note.content"]
    )
    # the reward figure's reference line is a run of its own, drawn in the same chart
    oracle = _references(store, parent)["oracle (expected)"]
    assert set(oracle.data.metrics) == {"cumulative_reward"}
    assert _steps(store, oracle, "cumulative_reward")[-1] == 300
    assert oracle.data.tags["mlflow.runColor"] == style_for("oracle")["color"]
    # a count is a parameter, not a metric ("contenders 12.00" was a bar of its own)
    assert parent.data.params["contenders"] == "4"
    assert "contenders" not in parent.data.metrics
    assert parent.data.tags["thinkpath.best.regret"] == min(regrets, key=regrets.__getitem__)
    # every run has a colour of its own, the same as its curve in the PNG figures
    colours = {name: child.data.tags["mlflow.runColor"] for name, child in children.items()}
    assert colours == {name: style_for(name)["color"] for name in children}
    shown = {
        *colours.values(),
        oracle.data.tags["mlflow.runColor"],
        parent.data.tags["mlflow.runColor"],
    }
    assert len(shown) == len(children) + 2
    artifacts = _artifacts(store, outcome.run_id)
    assert {
        "results.md",
        "results.csv",
        "summary.csv",
        "plots/regret.png",
        "plots/reward.png",
        "plots/comparison.png",
    } <= artifacts
    # the run's description is the results table, and the experiment opens on its runs
    assert "glr_thompson" in parent.data.tags["mlflow.note.content"]
    kind = store.client.get_experiment(parent.info.experiment_id).tags["mlflow.experimentKind"]
    assert kind == "custom_model_development"
    # MLflow lists the newest first, and shows ten rows: the references, then the best contender
    newest = store.client.search_runs(
        [parent.info.experiment_id],
        f"tags.mlflow.parentRunId = '{parent.info.run_id}'",
        order_by=["attribute.start_time DESC"],
        max_results=4,
    )
    assert newest[0].info.run_name == "oracle (expected)"
    assert {run.info.run_name for run in newest[1:3]} == {"random", "numpy-ts"}
    assert newest[3].info.run_name == min(("thompson", "glr_thompson"), key=regrets.__getitem__)
    png = Path(store.client.download_artifacts(outcome.run_id, "plots/regret.png", str(home)))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = Path(store.client.download_artifacts(outcome.run_id, "results.md", str(home)))
    assert "glr_thompson" in table.read_text()


def test_a_contextual_experiment_runs_with_a_mabwiser_peer(
    store: TrackingStore, home: Path
) -> None:
    experiment = get_experiment("contextual")
    params = resolve_params(
        experiment,
        {
            "policies": "contextual_thompson,linucb",
            "peers": "mabwiser:linucb",
            "seeds": "2",
            "horizon": "200",
        },
    )
    outcome = run_experiment(experiment, params, store, ExperimentContext(home))
    children = _children(store, store.client.get_run(outcome.run_id))
    assert set(children) == {"contextual_thompson", "linucb", "mabwiser:linucb"}
    assert all(child.data.metrics["regret"] >= 0 for child in children.values())


def test_the_replay_experiment_with_a_scripted_model(store: TrackingStore, home: Path) -> None:
    suite = generate_suite(seed=0, per_family=2, families=["first_letter", "multiple_choice"])
    by_query = {task.query: task for task in suite.tasks}

    def answer(request: LLMRequest) -> str:
        prompt = request.messages[-1].content
        task = next(task for query, task in by_query.items() if query in prompt)
        # the direct-answer template is right on letters, the elimination template on choices
        right = ("Give only the answer" in prompt and task.family == "first_letter") or (
            "'drop'" in prompt and task.family == "multiple_choice"
        )
        return f"Answer: {task.expected if right else 'zzz'}"

    llm = ScriptedLLM(answer)
    models: list[str] = []

    def factory(model: str) -> ScriptedLLM:
        models.append(model)
        return llm

    experiment = get_experiment("replay")
    overrides = {
        "model": "scripted/test",
        "templates": "direct_answer,elimination,first_principles",
        "families": "first_letter,multiple_choice",
        "per_family": "2",
        "policies": "thompson,contextual_thompson,random",
        "runs": "10",
        "steps": "60",
    }
    params = resolve_params(experiment, overrides)
    context = ExperimentContext(home, llm_factory=factory)
    outcome = run_experiment(experiment, params, store, context)
    assert models == ["scripted/test"]
    assert len(llm.requests) == 3 * 4
    parent = store.client.get_run(outcome.run_id)
    # the metrics of no contender are tags: a scalar on the parent would chart as a lone bar
    assert float(parent.data.tags["thinkpath.baseline.family_oracle"]) == pytest.approx(1.0)
    assert float(parent.data.tags["thinkpath.baseline.best_fixed"]) == pytest.approx(0.5)
    assert "baseline.best_fixed" not in parent.data.metrics
    assert outcome.result.metrics["settled_reward.contextual_thompson"] > 0.5
    # the per-family oracle's line of the reward figure is a run of its own beside the policies
    line = _references(store, parent)["per-family oracle"]
    oracle = store.client.get_metric_history(line.info.run_id, "cumulative_reward")
    assert [point.value for point in oracle[:2]] == pytest.approx([1.0, 2.0])
    assert set(_references(store, parent)) == {
        "uniform random",
        f"best single ({parent.data.tags['best_fixed_strategy']})",
        "per-family oracle",
    }
    assert {"results.md", "families.md", "outcome_matrix.json", "plots/reward.png"} <= (
        _artifacts(store, outcome.run_id)
    )
    # the second run is served from the cache: the model is not asked again
    again = run_experiment(experiment, params, store, context)
    assert len(llm.requests) == 12
    assert again.result.metrics["baseline.best_fixed"] == pytest.approx(0.5)


def test_the_ope_experiment_covers_the_truth(store: TrackingStore, home: Path) -> None:
    experiment = get_experiment("ope")
    params = resolve_params(experiment, {"scenarios": "60", "decisions": "1000"})
    assert isinstance(params, OPEParams)
    outcome = run_experiment(experiment, params, store, ExperimentContext(home))
    metrics = outcome.result.metrics  # summarised in the parent's comparison figure and CSV
    assert "plots/comparison.png" in _artifacts(store, outcome.run_id)
    for estimator in ("ips", "snips", "doubly_robust"):
        assert metrics[f"coverage.{estimator}"] >= 0.85
        assert abs(metrics[f"bias.{estimator}"]) < 0.03
    # one run per estimator; its running coverage is a curve over the logs, one point per log
    # (its final coverage, a metric of its own, once made the curve's first point, at step 0)
    parent = store.client.get_run(outcome.run_id)
    children = _children(store, parent)
    assert set(children) == {"ips", "snips", "doubly_robust"}
    for child in children.values():
        assert _steps(store, child, "coverage_so_far") == list(range(1, 61))
        assert _steps(store, child, "coverage") == [0]
        assert child.data.params["step"] == "one simulated log"
    nominal = _references(store, parent)["nominal"]
    assert _steps(store, nominal, "coverage_so_far") == list(range(1, 61))


def _exploding(error: BaseException) -> Experiment:
    def execute(params: Any, context: ExperimentContext) -> ExperimentResult:
        raise error

    template = get_experiment("ope")
    return Experiment(
        name="exploding",
        summary="raises",
        params_model=template.params_model,
        defaults=template.defaults,
        quick={},
        execute=execute,
    )


@pytest.mark.parametrize("error", [KeyboardInterrupt(), RuntimeError("boom")])
def test_an_interrupted_or_crashed_run_is_marked_failed(
    store: TrackingStore, home: Path, error: BaseException
) -> None:
    experiment = _exploding(error)
    with pytest.raises(type(error)):
        run_experiment(experiment, OPEParams(), store, ExperimentContext(home))
    found = store.client.get_experiment_by_name(mlflow_experiment_name(experiment))
    assert found is not None
    runs = store.client.search_runs([found.experiment_id], order_by=["attributes.start_time DESC"])
    assert runs[0].info.status == "FAILED"
    assert all(run.info.status != "RUNNING" for run in runs)


def test_an_unreachable_tracking_server_fails_before_any_work(home: Path) -> None:
    with pytest.raises(ConfigError, match="unreachable"):
        TrackingStore("http://127.0.0.1:9", home / "mlartifacts")


def test_a_tracking_uri_without_scheme_is_refused(home: Path) -> None:
    with pytest.raises(ConfigError, match="scheme"):
        TrackingStore(str(home / "mlflow.db"), home / "mlartifacts")


def test_the_reward_band_of_a_curve_is_its_mean_over_runs(store: TrackingStore) -> None:
    from experiments.experiment import Curve

    curve = Curve("x", {}, np.array([1, 2]), {"m": np.array([[1.0, 2.0], [3.0, 4.0]])}, {})
    band = curve.band("m")
    assert band.mean.tolist() == [2.0, 3.0]
    assert np.all(band.low < band.mean)
    assert np.all(band.high > band.mean)


def test_a_database_that_cannot_be_created_is_refused() -> None:
    with pytest.raises(ConfigError, match="cannot be opened"):
        TrackingStore("sqlite:////proc/no-such-dir/mlflow.db", Path("/proc/no-such-dir"))


def test_every_experiment_is_tagged_to_open_on_its_runs(store: TrackingStore) -> None:
    created = store.experiment_id("thinkpath-kind-new")
    assert store.client.get_experiment(created).tags["mlflow.experimentKind"] == (
        "custom_model_development"
    )
    # one made elsewhere without the tag (an older ThinkPath, MLflow's own UI) gets it on first use
    bare = store.client.create_experiment("thinkpath-kind-old")
    assert "mlflow.experimentKind" not in store.client.get_experiment(bare).tags
    assert store.experiment_id("thinkpath-kind-old") == bare
    assert store.client.get_experiment(bare).tags["mlflow.experimentKind"] == (
        "custom_model_development"
    )
