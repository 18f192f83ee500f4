"""The online evaluation with a scripted model: contenders, caching, learning and the report."""

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine.adapters.llm.caching import CachingLLM
from engine.adapters.llm.scripted import ScriptedLLM, schema_example
from engine.adapters.memory_searcher import InMemorySearcher
from engine.domain.records import LLMRequest
from engine.errors import ConfigError
from engine.settings import load_settings
from engine.stages.procedures import SAMPLE_SEED_BASE
from experiments.experiment import ExperimentContext
from experiments.heldout import heldout_suite
from experiments.online import (
    PRICED_PER_CALL,
    Step,
    baseline_steps,
    engine_steps,
    variant_engine,
)
from experiments.online_experiment import OnlineParams, online_experiment, run_online
from experiments.online_report import auc
from experiments.registry import get_experiment, resolve_params
from experiments.replay import chosen_templates
from experiments.tasks import Task

SUITE = heldout_suite(seed=0, per_family=3, families=["arithmetic_phrased", "word_length"])
EXPECTED = {task.query: task.expected for task in SUITE.tasks}


def script(request: LLMRequest) -> str:
    """Right under `direct_answer` for word lengths and under `spell_it_out` for arithmetic; the
    bare question gets a wrong guess; the referee always gives 2 (uninformative)."""
    if request.json_schema is not None:
        example = schema_example(request.json_schema)
        if request.purpose == "referee":
            example = {"score": 2, "reason": "ok"}
        return json.dumps(example)
    text = request.messages[-1].content
    query = next((q for q in EXPECTED if q in text), None)
    if query is None:
        return "Background notes."
    family = next(t.family for t in SUITE.tasks if t.query == query)
    right = ("Give only the answer" in text and family == "word_length") or (
        "with a space between each" in text and family == "arithmetic_phrased"
    )
    return f"Answer: {EXPECTED[query] if right else '999'}\n"


PARAMS = OnlineParams(
    model="scripted/test",
    families=("arithmetic_phrased", "word_length"),
    per_family=3,
    orders=2,
    templates=("direct_answer", "spell_it_out", "step_by_step_check"),
)


@pytest.fixture
def result_and_llm(tmp_path: Path) -> tuple[object, ScriptedLLM]:
    llm = ScriptedLLM(script)
    context = ExperimentContext(data_dir=tmp_path)
    return run_online(PARAMS, context, llm=llm, searcher=InMemorySearcher()), llm


def test_every_contender_is_reported_with_its_figures(result_and_llm: tuple[Any, Any]) -> None:
    result, _ = result_and_llm
    summary = result.tables["tables/summary.md"]
    for label in ("bare", "random", "oracle", "fixed:direct_answer", "engine:checker",
                  "engine:referee", "engine:seed_off", "engine:tools_off"):  # fmt: skip
        assert f"| {label} |" in summary
    assert result.figures[0].metric == "accuracy_so_far"
    curve = {c.label: c for c in result.curves}
    assert curve["oracle"].final["accuracy"] == pytest.approx(1.0)
    assert curve["bare"].final["accuracy"] == pytest.approx(0.0)
    assert curve["engine:checker"].series["accuracy_so_far"].shape[0] == 2  # one row per order
    assert "warm decisions: n, calls, median s" in summary


def test_forced_answers_are_shared_by_orders_and_a_rerun_is_all_hits(
    tmp_path: Path, result_and_llm: tuple[Any, Any]
) -> None:
    first, llm = result_and_llm
    asked = len(llm.requests)
    # 6 tasks: 1 bare + 3 forced each, asked once although there are 2 orders
    bare_and_forced = [r for r in llm.requests[: 6 * 4]]
    assert len({r.messages for r in bare_and_forced}) == 24
    again = ScriptedLLM(script)
    run_online(PARAMS, ExperimentContext(data_dir=tmp_path), llm=again, searcher=InMemorySearcher())
    assert asked > 24
    assert again.requests == []
    assert first.metrics["cache_misses"] == asked


def test_the_referee_is_measured_against_the_checker(result_and_llm: tuple[Any, Any]) -> None:
    result, _ = result_and_llm
    referee = result.tables["tables/referee.md"]
    assert "Valid verdicts: 12 of 12 (100.0%)" in referee
    assert "| all | 12 |" in referee
    assert "0.50 |" in referee  # a constant score separates nothing: AUC 0.5


def test_auc_ranks_right_above_wrong() -> None:
    assert auc([1.0, 0.0, 0.25], [True, False, False]) == 1.0
    assert auc([0.0, 1.0], [True, False]) == 0.0
    assert auc([1.0], [True]) != auc([1.0], [True])  # NaN: no wrong answer to rank against


def test_the_experiment_is_registered_and_validates_its_parameters() -> None:
    experiment = get_experiment("online")
    assert experiment.name == online_experiment().name
    params = resolve_params(experiment, {"per_family": "2"}, quick=True)
    assert isinstance(params, OnlineParams)
    with pytest.raises(ConfigError, match="unknown templates"):
        resolve_params(experiment, {"templates": "nope,direct_answer"})
    with pytest.raises(ConfigError, match="unknown engine variants"):
        resolve_params(experiment, {"variants": "checker,psychic"})
    with pytest.raises(ConfigError, match="held-out families"):
        resolve_params(experiment, {"families": "gardening"})


def test_the_lift_is_paired_by_order_and_tools_are_shown_one_by_one(
    result_and_llm: tuple[Any, Any],
) -> None:
    result, _ = result_and_llm
    lift = result.tables["tables/lift.md"]
    # The bare model is always wrong here, so the lift over it is the engine's own accuracy.
    curve = {c.label: c for c in result.curves}
    engine = 100 * curve["engine:checker"].final["final_window_accuracy"]
    assert f"| engine:checker | bare | {engine:+.1f} [" in lift
    assert "| engine:tools_off | random |" in lift
    choices = result.tables["tables/choices-checker.md"]
    assert re.search(r"\| \w+\+direct: share \(right\) \|", choices)  # one tool arm a column
    assert choices.count(": share (right) |") >= 2
    assert "final window (last 33%)" in choices


def test_the_self_consistency_agreement_is_measured_against_the_checker(tmp_path: Path) -> None:
    """Samples agree on right word lengths and split 1:2 on (wrong) arithmetic, so the majority
    share ranks every right answer above every wrong one."""

    def voting(request: LLMRequest) -> str:
        text = request.messages[-1].content
        query = next((q for q in EXPECTED if q in text), None)
        if request.temperature == 0 or query is None or request.json_schema is not None:
            return script(request)
        family = next(t.family for t in SUITE.tasks if t.query == query)
        if family == "word_length":
            return f"Answer: {EXPECTED[query]}"
        return "Answer: 998" if request.seed == SAMPLE_SEED_BASE else "Answer: 999"

    params = PARAMS.model_copy(
        update={"templates": ("direct_answer", "self_consistency"), "variants": ("checker",)}
    )
    llm = ScriptedLLM(voting)
    result = run_online(
        params, ExperimentContext(data_dir=tmp_path), llm=llm, searcher=InMemorySearcher()
    )
    table = result.tables["tables/agreement.md"]
    # 6 tasks, replayed in each of the 2 orders
    assert "| fixed:self_consistency | all | 12 | 1.00 | 1.00 | 0.67 |" in table
    assert "| fixed:self_consistency | word_length | 6 | nan | 1.00 | nan |" in table
    assert "fixed:direct_answer" not in table  # one call: no agreement to measure
    sampled = Counter(
        next(q for q in EXPECTED if q in r.messages[-1].content)
        for r in llm.requests
        if r.temperature > 0
    )
    # three samples per forced answer the model writes (a tool that reads a whole question on
    # a new kind's cold start answers it itself, with no sample)
    assert all(count % 3 == 0 for count in sampled.values())
    assert len(sampled) >= len(SUITE.tasks) - 1


def test_without_self_consistency_the_agreement_table_says_so(
    result_and_llm: tuple[Any, Any],
) -> None:
    result, _ = result_and_llm
    assert result.tables["tables/agreement.md"].startswith("No self-consistency answers")


@pytest.mark.parametrize(
    ("variant", "allowed"), [("tools_off", {"none"}), ("program_only", {"none", "program"})]
)
def test_a_tool_variant_decides_with_its_tools_only(
    tmp_path: Path, variant: str, allowed: set[str]
) -> None:
    params = PARAMS.model_copy(update={"orders": 1, "variants": (variant,)})
    llm = CachingLLM(ScriptedLLM(script), tmp_path / "cache", model="scripted/test")
    settings = load_settings(home=tmp_path, model="scripted/test", store_url="memory")
    steps = engine_steps(
        variant,
        range(len(SUITE.tasks)),
        SUITE.tasks,
        llm=llm,
        settings=settings,
        searcher=InMemorySearcher(),
        templates=chosen_templates(params.templates),
        advance=lambda _: None,
    )
    # A tool arm is the tool's name, or "<tool>+direct" when its result is the answer.
    assert {step.tool.split("+")[0] for step in steps} <= allowed
    assert len(steps) == len(SUITE.tasks)


def test_each_family_gets_each_contenders_accuracy_with_an_interval(
    result_and_llm: tuple[Any, Any],
) -> None:
    result, _ = result_and_llm
    families = result.tables["tables/families.md"]
    # 3 tasks x 2 orders per family; the bare model is always wrong, the oracle always right.
    assert "| bare, 95% CI | fixed:" in families
    bare_cell, oracle_cell = "0% [0, 39]", "100% [61, 100]"
    assert f"| arithmetic_phrased | 6 | {bare_cell} |" in families
    assert "| all | 12 | 0% [0, 24] |" in families
    row = next(line for line in families.splitlines() if line.startswith("| word_length |"))
    assert oracle_cell in row


@pytest.mark.parametrize(
    ("variant", "policy", "per_call"),
    [
        ("checker", "glr_thompson", 0.0),  # the settings as given
        ("pooled", "pooled_thompson", 0.0),
        ("from_zero", "thompson", 0.0),
        ("priced", "glr_thompson", PRICED_PER_CALL),
    ],
)
def test_a_variant_changes_the_settings_it_names(
    tmp_path: Path, variant: str, policy: str, per_call: float
) -> None:
    settings = load_settings(
        home=tmp_path,
        model="scripted/test",
        store_url="memory",
        path_policy="glr_thompson",
        tool_policy="glr_thompson",
        cost_per_call=0.0,
    )
    engine = variant_engine(
        variant,
        llm=CachingLLM(ScriptedLLM(script), tmp_path / "cache", model="scripted/test"),
        settings=settings,
        searcher=InMemorySearcher(),
        templates=chosen_templates(PARAMS.templates),
    )
    roles = engine.snapshot()["roles"]
    assert (roles["path"]["policy"], roles["tool"]["policy"]) == (policy, policy)
    assert engine.config.cost_price.per_call == per_call


def test_the_cross_validated_oracle_never_lets_a_task_choose_its_own_arm() -> None:
    """Two arms, four tasks of one family: arm `a` is right on tasks 0 and 1, arm `b` on task 2
    only. In hindsight `a` wins every task (2 of 4 right). Cross-validated in two folds (tasks
    0, 2 and 1, 3), task 0 is answered by the best arm on tasks 1, 3 (`a`), task 2 likewise,
    task 1 by the best on tasks 0, 2 (a tie of 1 each: the first arm, `a`)."""
    tasks = [Task(f"t{i}", "f", f"q{i}", "x", "exact") for i in range(4)]
    right = {"fixed:a": {0, 1}, "fixed:b": {2}}
    fixed = {
        label: [Step(t, float(i in hits), 1, 0, 0.0, arm=label) for i, t in enumerate(tasks)]
        for label, hits in right.items()
    }
    steps = baseline_steps(fixed, [0, 1, 2, 3], np.random.default_rng(0))
    assert [s.arm for s in steps["oracle"]] == ["fixed:a"] * 4
    assert [s.arm for s in steps["oracle_cv"]] == ["fixed:a"] * 4
    # make `b` the hindsight winner through task 2's own answer: the held-out rule must not see it
    right = {"fixed:a": {1}, "fixed:b": {2, 3}}
    fixed = {
        label: [Step(t, float(i in hits), 1, 0, 0.0, arm=label) for i, t in enumerate(tasks)]
        for label, hits in right.items()
    }
    steps = baseline_steps(fixed, [0, 1, 2, 3], np.random.default_rng(0))
    assert [s.arm for s in steps["oracle"]] == ["fixed:b"] * 4
    # fold 0 (tasks 0, 2) is answered by the best on tasks 1, 3: a tie (1 each) -> `a`;
    # fold 1 (tasks 1, 3) by the best on tasks 0, 2: `b` (task 2)
    assert [s.arm for s in steps["oracle_cv"]] == ["fixed:a", "fixed:b", "fixed:a", "fixed:b"]
    assert [s.reward for s in steps["oracle_cv"]] == [0.0, 0.0, 0.0, 1.0]  # in hindsight: 2 of 4
