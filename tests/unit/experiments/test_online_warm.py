"""The cache warmer: a second process runs the engine variants into the evaluation's cache."""

from collections.abc import Callable
from pathlib import Path

import pytest

from engine.adapters.llm.scripted import ScriptedLLM
from engine.adapters.memory_searcher import InMemorySearcher
from experiments.experiment import ExperimentContext
from experiments.online_experiment import run_online
from experiments.online_warm import main, warm
from tests.unit.experiments.test_online import PARAMS, script

WARMED = PARAMS.model_copy(update={"variants": ("checker", "pooled", "priced")})


def test_after_warming_the_evaluation_asks_the_model_nothing_for_its_engines(
    tmp_path: Path,
) -> None:
    labels: list[str] = []

    def noted(total: int, label: str) -> Callable[[int], None]:
        labels.append(label)
        return lambda steps: None

    warmer = ScriptedLLM(script)
    context = ExperimentContext(data_dir=tmp_path, progress=noted)
    hits, misses = warm(WARMED, context, llm=warmer, searcher=InMemorySearcher())
    assert misses == len(warmer.requests) > 0
    assert hits > 0  # variants and orders share requests: the same seed brief, say
    assert labels == [f"engine ({v}), warming" for v in ("priced", "pooled", "checker")]

    inner = ScriptedLLM(script)
    asked_before_the_engines: list[int] = []

    def watched(total: int, label: str) -> Callable[[int], None]:
        if label.startswith("engine") and not asked_before_the_engines:
            asked_before_the_engines.append(len(inner.requests))
        return lambda steps: None

    context = ExperimentContext(data_dir=tmp_path, progress=watched)
    result = run_online(WARMED, context, llm=inner, searcher=InMemorySearcher())
    assert "| engine:priced |" in result.tables["tables/summary.md"]
    # The bare model and the forced templates were not warmed; every engine request was.
    assert asked_before_the_engines == [len(inner.requests)]
    assert len(inner.requests) > 0


@pytest.mark.parametrize(
    ("pair", "message"), [("variants", "KEY=VALUE"), ("variants=psychic", "psychic")]
)
def test_bad_parameters_are_refused_before_any_model_loads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], pair: str, message: str
) -> None:
    assert main(["--home", str(tmp_path), "--set", pair]) == 2
    assert message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
