"""Replay: the outcome matrix from a scripted model, its cache, and policies replayed over it."""

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from engine.adapters.llm.scripted import ScriptedLLM
from engine.domain.records import LLMRequest
from engine.errors import ConfigError, LLMTimeoutError, LLMUnavailableError
from experiments.baselines import FixedArmPolicy, UniformRandomPolicy
from experiments.replay import (
    OutcomeMatrix,
    build_outcome_matrix,
    cache_key,
    cached_outcome_matrix,
    check_task,
)
from experiments.replay_runs import family_contexts, replay
from experiments.tasks import TaskSuite, generate_suite
from learning import make_policy


@dataclass(frozen=True)
class Prompt:
    id: str
    prompt: str
    name: str = "a strategy"
    description: str = "for tests"


STRATEGIES = [
    Prompt("terse", "[terse] {query}"),
    Prompt("spell", "[spell] {query}"),
    Prompt("muddle", "[muddle] {query}"),
]
FAMILIES = ["arithmetic", "first_letter", "multiple_choice"]
# which strategy the scripted model answers correctly for, per family
GOOD = {("terse", "first_letter"), ("terse", "multiple_choice"), ("spell", "arithmetic")}


def _suite() -> TaskSuite:
    return generate_suite(seed=5, per_family=6, families=FAMILIES)


def _scripted(suite: TaskSuite) -> ScriptedLLM:
    by_query = {task.query: task for task in suite.tasks}

    def answer(request: LLMRequest) -> str:
        text = request.messages[-1].content
        strategy = text[1 : text.index("]")]
        task = by_query[text[text.index("]") + 2 :].split("\n\n")[0]]
        right = (strategy, task.family) in GOOD
        return f"Let me think.\nAnswer: {task.expected if right else 'no idea'}"

    return ScriptedLLM(answer, model="scripted")


def _matrix() -> OutcomeMatrix:
    suite = _suite()
    return build_outcome_matrix(_scripted(suite), "scripted", STRATEGIES, suite, check_task)


def test_the_matrix_scores_each_cell_with_the_exact_checker() -> None:
    matrix = _matrix()
    expected = np.array(
        [[float((s.id, task.family) in GOOD) for task in matrix.tasks] for s in STRATEGIES]
    )
    assert np.array_equal(matrix.rewards, expected)
    assert matrix.tokens.min() > 0
    assert matrix.faults == 0


def test_baselines_are_exact() -> None:
    baselines = _matrix().baselines()
    assert baselines.uniform == pytest.approx(3 / 9)
    assert baselines.best_fixed == pytest.approx(2 / 3)
    assert baselines.best_fixed_strategy == "terse"
    assert baselines.family_oracle == pytest.approx(1.0)
    assert baselines.family_best == {
        "arithmetic": "spell",
        "first_letter": "terse",
        "multiple_choice": "terse",
    }


def test_the_cache_is_used_and_a_changed_prompt_misses_it(tmp_path: Path) -> None:
    suite = _suite()
    llm = _scripted(suite)
    first, path, cached = cached_outcome_matrix(
        tmp_path, lambda: llm, "scripted", STRATEGIES, suite, scorer=check_task
    )
    assert not cached
    assert path.exists()
    calls = len(llm.requests)

    def no_model() -> ScriptedLLM:
        raise AssertionError("a cache hit must not load the model")

    again, _, cached = cached_outcome_matrix(
        tmp_path, no_model, "scripted", STRATEGIES, suite, scorer=check_task
    )
    assert cached
    assert len(llm.requests) == calls
    assert np.array_equal(again.rewards, first.rewards)
    assert again.tasks == first.tasks
    changed = [Prompt("terse", "[terse] Be brief. {query}"), *STRATEGIES[1:]]
    assert cache_key("scripted", changed, suite, 96) != cache_key("scripted", STRATEGIES, suite, 96)
    assert cache_key("other", STRATEGIES, suite, 96) != cache_key("scripted", STRATEGIES, suite, 96)


def test_an_interrupted_build_resumes_from_its_checkpoint(tmp_path: Path) -> None:
    suite = _suite()
    checkpoint = tmp_path / "partial.json"
    good = _scripted(suite)
    calls = {"n": 0}

    def flaky(request: LLMRequest) -> str:
        calls["n"] += 1
        if request.messages[-1].content.startswith("[muddle]"):
            raise KeyboardInterrupt  # stopped during the third strategy
        return good.complete(request).text

    with pytest.raises(KeyboardInterrupt):
        build_outcome_matrix(
            ScriptedLLM(flaky), "scripted", STRATEGIES, suite, check_task, checkpoint=checkpoint
        )
    resumed = _scripted(suite)
    matrix = build_outcome_matrix(
        resumed, "scripted", STRATEGIES, suite, check_task, checkpoint=checkpoint
    )
    assert len(resumed.requests) == len(suite.tasks)  # only the unfinished strategy
    assert np.array_equal(matrix.rewards, _matrix().rewards)


def test_a_timeout_is_a_fault_scored_zero_but_an_unavailable_model_stops_the_build() -> None:
    suite = _suite()

    def slow(request: LLMRequest) -> str:
        raise LLMTimeoutError("too slow")

    matrix = build_outcome_matrix(ScriptedLLM(slow), "scripted", STRATEGIES, suite, check_task)
    assert matrix.faults == len(STRATEGIES) * len(suite.tasks)
    assert matrix.rewards.sum() == 0.0

    def missing(request: LLMRequest) -> str:
        raise LLMUnavailableError("no such model")

    with pytest.raises(LLMUnavailableError):
        build_outcome_matrix(ScriptedLLM(missing), "scripted", STRATEGIES, suite, check_task)


def test_bad_inputs_are_rejected_before_any_call() -> None:
    suite = _suite()
    llm = _scripted(suite)
    with pytest.raises(ConfigError, match="distinct"):
        build_outcome_matrix(llm, "m", [STRATEGIES[0], STRATEGIES[0]], suite, check_task)
    with pytest.raises(ConfigError, match="max_tokens"):
        build_outcome_matrix(llm, "m", STRATEGIES, suite, check_task, max_tokens=0)
    assert llm.requests == []


def test_the_matrix_round_trips_through_json() -> None:
    matrix = _matrix()
    again = OutcomeMatrix.from_json(matrix.to_json())
    assert again.tasks == matrix.tasks
    assert np.array_equal(again.rewards, matrix.rewards)
    assert again.answers == matrix.answers


def test_replayed_fixed_and_random_policies_earn_their_exact_values() -> None:
    matrix = _matrix()
    arms = list(matrix.strategies)
    fixed = replay(matrix, lambda seed: FixedArmPolicy(arms, "terse"), "terse", runs=40, steps=200)
    assert fixed.mean_reward == pytest.approx(2 / 3, abs=0.02)
    uniform = replay(
        matrix, lambda seed: UniformRandomPolicy(arms, seed), "random", runs=40, steps=200
    )
    assert uniform.mean_reward == pytest.approx(1 / 3, abs=0.02)


def test_a_contextual_policy_learns_the_best_strategy_per_family() -> None:
    matrix = _matrix()
    arms = list(matrix.strategies)
    contexts = family_contexts(matrix.families)
    result = replay(
        matrix,
        lambda seed: make_policy("contextual_thompson", arms=arms, seed=seed, context_dim=3),
        "contextual_thompson",
        runs=20,
        steps=300,
        contexts=contexts,
    )
    context_free = replay(
        matrix,
        lambda seed: make_policy("thompson", arms=arms, seed=seed),
        "thompson",
        runs=20,
        steps=300,
    )
    baselines = matrix.baselines()
    assert result.settled_reward > baselines.best_fixed + 0.2
    assert result.settled_reward >= 0.95 * baselines.family_oracle
    assert context_free.settled_reward < baselines.best_fixed + 0.05


def test_the_same_seed_replays_the_same_rewards() -> None:
    matrix = _matrix()
    arms = list(matrix.strategies)

    def thompson(seed: int) -> object:
        return make_policy("thompson", arms=arms, seed=seed)

    first = replay(matrix, thompson, "t", runs=3, steps=50, seed=9)  # type: ignore[arg-type]
    second = replay(matrix, thompson, "t", runs=3, steps=50, seed=9)  # type: ignore[arg-type]
    assert np.array_equal(first.rewards, second.rewards)
