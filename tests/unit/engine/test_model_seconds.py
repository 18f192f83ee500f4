"""A model's price on a kind: its speed times the kind's work, so that the slow path a model
happened to run is not charged to the model (docs/benchmarks.md, issue 38 (d))."""

from engine.domain.records import LearnedOutcome
from engine.orchestration.learner import Learner
from engine.orchestration.model_seconds import ModelSeconds, work_of
from learning import make_policy


def test_a_slow_path_on_the_small_model_is_not_charged_to_the_model() -> None:
    seconds = ModelSeconds()
    seconds.add("capitals", "small", 11.7, (300, 320))  # a long spelled-out answer
    seconds.add("capitals", "big", 12.7, (400, 100))  # a short one, on a model ten times slower
    expected = seconds.expected("capitals", ["small", "big"])
    # per decision of its own, the small one cost about as much as the big one (11.7 s against
    # 12.7 s); for the same work it is the cheaper by far
    assert expected["small"] < expected["big"] / 2.5, expected
    work = (work_of((300, 320)) + work_of((400, 100))) / 2
    assert expected["small"] == round(11.7 / work_of((300, 320)) * work, 6)


def test_a_new_kind_is_charged_every_kind_s_speed_and_work_and_a_decision_uncounts() -> None:
    seconds = ModelSeconds()
    seconds.add("sums", "big", 6.0, (0, 60))
    seconds.add("capitals", "big", 2.0, (0, 20))
    seconds.add("capitals", "small", 0.2, (0, 20))
    # a new kind: each model's speed over every kind, the mean work over every kind (100 / 3)
    assert seconds.expected("new", ["big", "small", "cold"]) == {
        "big": round(0.1 * 100 / 3, 6),
        "small": round(0.01 * 100 / 3, 6),
    }
    # sums never ran the small model: its speed from the other kinds, the work of sums
    assert seconds.expected("sums", ["small"]) == {"small": round(0.01 * 60, 6)}
    seconds.add("sums", "big", 6.0, (0, 60), sign=-1)
    assert seconds.expected("sums", ["big"]) == {"big": round(0.1 * 20, 6)}  # sums: gone
    again = ModelSeconds.restored(seconds.state(list), tuple)
    assert again.state(list) == seconds.state(list)


def test_a_model_that_did_no_work_is_not_priced_and_archived_ones_are_forgotten() -> None:
    seconds = ModelSeconds()
    seconds.add("units", "small", 0.0, (0, 0))  # a tool answered: no call
    assert seconds.expected("units", ["small"]) == {}
    seconds.add("capitals", "small", 0.5, (0, 50))
    assert seconds.expected("units", ["small"]) == {"small": 0.0}  # units asks no work
    seconds.forget("small")
    assert seconds.state(list) == {"kinds": [], "overall": {}}


def outcome(seq: int, model: str, seconds: float, tokens: tuple[int, int] | None) -> LearnedOutcome:
    return LearnedOutcome(
        seq=seq,
        decision_id=f"d{seq}",
        namespace="default",
        choices={"model": model},
        context=(1.0, 0.0),
        source="checker",
        reward=1.0,
        weight=1.0,
        seconds=seconds,
        tokens=tokens,
    )


def test_the_learner_prices_models_from_decisions_with_tokens_only() -> None:
    learner = Learner(
        {"model": make_policy("ucb1", ["small", "big"])},
        context_dim=2,
        history=lambda _decisions: [],
    )
    learner.apply(
        [
            outcome(1, "small", 3.0, None),  # stored before tokens were: not counted
            outcome(2, "small", 0.4, (80, 30)),
            outcome(3, "big", 4.0, (80, 30)),
        ]
    )
    expected = learner.model_seconds((1.0, 0.0), ["small", "big"])
    assert expected == {"small": 0.4, "big": 4.0}
