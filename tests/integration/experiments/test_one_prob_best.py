"""One P(best) for a kind (issue 40): the Arms tab showed calculator 0.031 for
`task:ticket-triage` where /api/v1/arms said 0.099. Now the tab, the API, `snapshot()` and the
live MLflow run show one number for each arm of the kind, and say what it is in one sentence."""

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from engine import PROB_BEST_MEANING, checker_for
from engine.adapters.llm.scripted import ScriptedLLM, canned_script
from engine.adapters.memory_searcher import InMemorySearcher
from engine.adapters.tracking import MLflowTracker, TrackingStore, metric_key
from engine.compose import build_engine
from engine.settings import Settings
from tests.unit.ui.conftest import PASSAGES
from ui.playground import ARM_COLUMNS, Actions
from ui.service.api import create_api

TASK = "ticket-triage"
KIND = f"task:{TASK}"
ASKED = [("What is 2 + 3?", "5"), ("What is 17 * 23?", "391"), ("What is 9 - 4?", "5")]
ROLE, ARM, PROB_BEST = (ARM_COLUMNS.index(name) for name in ("role", "arm", "P(best)"))


def test_the_tab_the_api_the_snapshot_and_mlflow_agree_for_a_kind(
    store: TrackingStore, tmp_path: Path
) -> None:
    tracker = MLflowTracker(store, experiment="thinkpath-one-prob-best")
    settings = Settings(home=tmp_path, store_url="memory", policy_seed=3)
    engine = build_engine(
        settings,
        llm=ScriptedLLM(canned_script),
        searcher=InMemorySearcher(PASSAGES),
        tracker=tracker,
    )
    for query, expected in ASKED:  # each decision's own outcomes are learned at once
        engine.decide(query, task=TASK, checker=checker_for(expected))

    truth = {(s.role, s.arm_id): s.prob_best for s in engine.arms(kind=KIND) if not s.retired}
    paths_and_tools = {key: p for key, p in truth.items() if key[0] in ("path", "tool")}
    assert all(p is not None for p in paths_and_tools.values())
    assert len({round(p or 0.0, 6) for p in paths_and_tools.values()}) > 1  # it has learned

    # /api/v1/arms?kind=...
    with TestClient(create_api(engine), base_url="http://localhost") as client:
        api = client.get("/api/v1/arms", params={"kind": KIND}).json()
        schema = client.get("/openapi.json").json()
    assert {(a["role"], a["arm_id"]): a["prob_best"] for a in api if not a["retired"]} == truth
    described = schema["components"]["schemas"]["ArmStats"]["properties"]["prob_best"]
    assert described["description"] == PROB_BEST_MEANING

    # engine.snapshot(): each arm's by_kind entry, under the kind's label
    label = next(row["name"] or row["kind"] for row in engine.kinds() if row["kind"] == KIND)
    snapshot = engine.snapshot()["roles"]
    for (role, arm), chance in truth.items():
        entry = next(a for a in snapshot[role]["arms"] if a["arm_id"] == arm)
        assert entry["by_kind"][label]["prob_best"] == chance, (role, arm)

    # the playground's Arms tab, at the three decimals it shows, with the sentence
    view = Actions(engine).arms(kind=KIND)
    for row in view.table:
        if (row[ROLE], row[ARM]) in truth:
            assert row[PROB_BEST] == round(truth[(row[ROLE], row[ARM])] or 0.0, 3), row
    assert PROB_BEST_MEANING in view.note

    # MLflow: the last point of each arm's curve for the kind, and the run says what it is
    run_id = tracker.run_id
    assert run_id is not None
    tracker.close()
    run = store.client.get_run(run_id)
    assert run.data.tags["prob_best"] == PROB_BEST_MEANING
    for (role, arm), chance in paths_and_tools.items():
        history = store.client.get_metric_history(run_id, metric_key("prob_best", KIND, role, arm))
        assert [point.step for point in history] == [1, 2, 3], (role, arm)
        assert history[-1].value == pytest.approx(chance, abs=1e-12), (role, arm)
