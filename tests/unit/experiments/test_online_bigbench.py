"""The online evaluation on the BIG-bench sample, end to end with a scripted model."""

import json
from pathlib import Path

import pytest

from engine.adapters.llm.scripted import ScriptedLLM, schema_example
from engine.adapters.memory_searcher import InMemorySearcher
from engine.domain.records import LLMRequest
from engine.errors import ConfigError
from experiments.bigbench.suite import bigbench_suite
from experiments.experiment import ExperimentContext
from experiments.online_experiment import OnlineParams, run_online, task_suite
from experiments.registry import get_experiment, resolve_params

FAMILIES = ("anachronisms", "simple_arithmetic_json_subtasks", "list_functions")
SUITE = bigbench_suite(per_family=2, families=FAMILIES)


def script(request: LLMRequest) -> str:
    """Right (by letter or target as given) under `direct_answer`, wrong anywhere else."""
    if request.json_schema is not None:
        example = schema_example(request.json_schema)
        if request.purpose == "referee":
            example = {"score": 2, "reason": "ok"}
        return json.dumps(example)
    text = request.messages[-1].content
    task = next((t for t in SUITE.tasks if t.query in text), None)
    if task is None:
        return "Background notes."
    if "Give only the answer" not in text:
        return "Answer: Z\n" if task.kind == "choice" else "Answer: 999999\n"
    return f"Answer: {task.expected}\n"


def test_the_bigbench_suite_runs_end_to_end(tmp_path: Path) -> None:
    params = OnlineParams(
        model="scripted/test",
        suite="bigbench",
        families=FAMILIES,
        per_family=2,
        orders=1,
        templates=("direct_answer", "step_by_step_check"),
        variants=("checker",),
    )
    assert task_suite(params) == SUITE
    result = run_online(
        params,
        ExperimentContext(data_dir=tmp_path),
        llm=ScriptedLLM(script),
        searcher=InMemorySearcher(),
    )
    curve = {c.label: c for c in result.curves}
    assert curve["bare"].final["accuracy"] == pytest.approx(0.0)
    assert curve["oracle"].final["accuracy"] == pytest.approx(1.0)
    assert curve["fixed:direct_answer"].final["accuracy"] == pytest.approx(1.0)
    assert "| engine:checker |" in result.tables["tables/summary.md"]
    assert "bigbench stream" in result.figures[0].title


def test_the_suite_is_chosen_and_validated_by_parameter() -> None:
    experiment = get_experiment("online")
    params = resolve_params(experiment, {"suite": "bigbench", "families": "hyperbaton"})
    assert isinstance(params, OnlineParams)
    assert {task.family for task in task_suite(params).tasks} == {"hyperbaton"}
    with pytest.raises(ConfigError, match="development families"):
        resolve_params(experiment, {"suite": "bigbench", "families": "arithmetic_phrased"})
    with pytest.raises(ConfigError, match="between 1 and 30"):
        resolve_params(experiment, {"suite": "bigbench", "per_family": "40"})
    with pytest.raises(ConfigError, match="suite"):
        resolve_params(experiment, {"suite": "mmlu"})
