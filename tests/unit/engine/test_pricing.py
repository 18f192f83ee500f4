"""The cost price: validated, mapped onto [0, 1], charged only where a decision's cost is known."""

import math

import pytest

from engine.adapters.store.memory import InMemoryStore
from engine.domain.pricing import CostPrice
from engine.domain.records import LearnedOutcome
from engine.errors import ConfigError
from engine.orchestration.pricing import CostCharger, cost_of_payload


@pytest.mark.parametrize("value", [-0.1, 1.5, math.nan, math.inf, True, "0.1"])
def test_a_bad_price_is_refused(value: object) -> None:
    with pytest.raises(ConfigError, match="per_call"):
        CostPrice(per_call=value)  # type: ignore[arg-type]


def test_the_net_reward_counts_calls_and_seconds_within_the_worst_charge() -> None:
    price = CostPrice(per_call=0.05, per_second=0.02, max_calls=8, max_seconds=10.0)
    assert price.worst == pytest.approx(0.6)
    assert price.net(1.0, calls=2, seconds=10.0) == pytest.approx((1.0 - 0.3 + 0.6) / 1.6)
    assert price.net(0.0, calls=99, seconds=99.0) == 0.0  # charged at most the worst
    assert price.net(1.0, calls=0, seconds=-3.0) == 1.0  # a negative duration charges nothing


def test_a_cheaper_wrong_answer_learns_more_than_a_costlier_one() -> None:
    """The clipped net of the first version scored every wrong answer 0, whatever it cost."""
    price = CostPrice(per_call=0.1)
    assert price.net(0.0, calls=1, seconds=0.0) > price.net(0.0, calls=3, seconds=0.0) > 0.0
    assert price.net(1.0, calls=3, seconds=0.0) > price.net(0.0, calls=0, seconds=0.0)


@pytest.mark.parametrize(
    ("field", "value"), [("max_calls", 0), ("max_calls", 2.5), ("max_seconds", 0)]
)
def test_a_bad_ceiling_is_refused(field: str, value: object) -> None:
    with pytest.raises(ConfigError, match=field):
        CostPrice(per_call=0.1, **{field: value})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "payload",
    [{}, {"cost": "3"}, {"cost": {"calls": -1, "seconds": 1}}, {"cost": {"calls": 2}},
     {"cost": {"calls": True, "seconds": 1}}, {"cost": {"calls": 2, "seconds": math.nan}}],
)  # fmt: skip
def test_a_payload_without_a_usable_cost_charges_nothing(payload: dict[str, object]) -> None:
    assert cost_of_payload(payload) is None


def test_an_outcome_of_an_unknown_decision_keeps_its_reward() -> None:
    outcome = LearnedOutcome(1, "missing", "default", {"path": "a"}, None, "checker", 0.9, 1.0)
    charged = CostCharger(InMemoryStore(), CostPrice(per_call=0.1)).charge([outcome])
    assert charged == [outcome]
    assert CostCharger(InMemoryStore(), CostPrice()).charge([outcome]) == [outcome]
