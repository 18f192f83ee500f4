"""Off-policy estimators recover a known policy value on simulated logs."""

from datetime import UTC, datetime

import numpy as np
import pytest

from engine.domain.records import DecisionRecord
from engine.errors import ConfigError
from experiments.ope import LoggedBandit, doubly_robust, ips, snips, tabular_reward_model
from experiments.ope_logs import LoggingScenario, logs_from_decisions, random_scenario
from tests.factories import decision_record


def _estimates(seed: int, count: int) -> tuple[float, dict[str, object]]:
    scenario = random_scenario(np.random.default_rng(seed))
    logs, target = scenario.draw(count, np.random.default_rng(seed + 1_000))
    model = tabular_reward_model(logs)
    return scenario.true_value, {
        "ips": ips(logs, target),
        "snips": snips(logs, target),
        "doubly_robust": doubly_robust(logs, target, model),
    }


def test_each_estimator_covers_the_true_value_at_about_the_nominal_rate() -> None:
    runs = 120
    covered = dict.fromkeys(("ips", "snips", "doubly_robust"), 0)
    for seed in range(runs):
        truth, estimates = _estimates(seed, 1_500)
        for name, estimate in estimates.items():
            covered[name] += estimate.covers(truth)  # type: ignore[attr-defined]
    rates = {name: count / runs for name, count in covered.items()}
    # 95% intervals: a binomial(120, 0.95) count falls below 0.87 * 120 with p < 0.001.
    assert all(0.87 <= rate <= 1.0 for rate in rates.values()), rates


def test_doubly_robust_and_snips_are_tighter_than_ips() -> None:
    _, estimates = _estimates(seed=5, count=4_000)
    widths = {name: e.high - e.low for name, e in estimates.items()}  # type: ignore[attr-defined]
    assert widths["snips"] < widths["ips"]
    assert widths["doubly_robust"] < widths["ips"]


def test_on_policy_logs_make_ips_the_plain_mean() -> None:
    scenario = random_scenario(np.random.default_rng(1))
    on_policy = LoggingScenario(scenario.table, scenario.logging, scenario.logging)
    logs, target = on_policy.draw(500, np.random.default_rng(2))
    assert ips(logs, target).value == pytest.approx(float(logs.rewards.mean()))
    assert snips(logs, target).value == pytest.approx(float(logs.rewards.mean()))


def test_a_biased_reward_model_is_corrected_by_doubly_robust() -> None:
    scenario = random_scenario(np.random.default_rng(7))
    logs, target = scenario.draw(20_000, np.random.default_rng(8))
    wrong_model = np.zeros_like(target)  # predicts 0 everywhere: direct method would say 0
    estimate = doubly_robust(logs, target, wrong_model)
    assert abs(estimate.value - scenario.true_value) < 4 * estimate.std_error + 0.01


def test_zero_propensity_is_rejected_naming_the_row() -> None:
    with pytest.raises(ConfigError, match="row 1"):
        LoggedBandit(
            arms=("a", "b"),
            actions=np.array([0, 1]),
            rewards=np.array([1.0, 0.0]),
            propensities=np.array([0.5, 0.0]),
        )


def test_target_rows_must_be_distributions() -> None:
    logs = LoggedBandit(
        arms=("a", "b"),
        actions=np.array([0, 1]),
        rewards=np.array([1.0, 0.0]),
        propensities=np.array([0.5, 0.5]),
    )
    with pytest.raises(ConfigError, match="distribution"):
        ips(logs, np.array([[0.5, 0.6], [0.5, 0.5]]))
    with pytest.raises(ConfigError, match="shape"):
        ips(logs, np.ones((3, 2)) / 2)


def test_logs_from_decisions_reads_choices_propensities_and_contexts() -> None:
    def record(decision_id: str, arm: str, propensity: float) -> DecisionRecord:
        return decision_record(decision_id, path=arm, tool=None, propensity=propensity)

    logs = logs_from_decisions(
        [(record("d1", "b", 0.25), 1.0), (record("d2", "a", 0.75), 0.0)], arms=["a", "b"]
    )
    assert logs.actions.tolist() == [1, 0]
    assert logs.propensities.tolist() == [0.25, 0.75]
    assert logs.contexts is not None
    assert logs.contexts.shape == (2, 2)
    with pytest.raises(ConfigError, match="'d3'"):
        logs_from_decisions([(record("d3", "zzz", 0.5), 1.0)], arms=["a", "b"])


def test_store_logs_evaluate_a_policy_through_the_engine_records() -> None:
    from engine.adapters.store.memory import InMemoryStore
    from engine.domain.records import OutcomeRecord
    from experiments.baselines import FixedArmPolicy
    from experiments.ope_logs import decisions_with_rewards, target_probabilities

    store = InMemoryStore()
    rng = np.random.default_rng(0)
    means = {"a": 0.2, "b": 0.9}
    for index in range(400):
        arm = "a" if rng.random() < 0.5 else "b"
        store.save_decision(
            DecisionRecord(
                decision_id=f"d{index}",
                namespace="default",
                created_at=datetime.now(UTC),
                query="q",
                context=None,
                choices={"path": arm},
                propensities={"path": 0.5},
            )
        )
        reward = float(rng.random() < means[arm])
        store.record_outcome(OutcomeRecord(f"d{index}", "referee", 1.0 - reward, weight=0.5))
        store.record_outcome(OutcomeRecord(f"d{index}", "checker", reward))
        store.record_outcome(OutcomeRecord(f"d{index}", "user", 0.0))  # outranked by the checker
    pairs = decisions_with_rewards(store, store, "default")
    assert len(pairs) == 400
    # the reward in force is the checker's, whatever the referee and the user said
    assert [reward for _, reward in pairs][:20] == [
        outcome.reward
        for outcome in store.outcomes_since("default", 0)
        if outcome.source == "checker"
    ][:20]
    logs = logs_from_decisions(pairs, arms=["a", "b"])
    estimate = snips(logs, target_probabilities(FixedArmPolicy(["a", "b"], "b"), logs))
    assert estimate.covers(0.9)
    assert not estimate.covers(0.2)
