"""What several objects hold is read-only: the config's source weights and the learner's state,
which only the learner itself changes."""

from collections.abc import Sequence

import pytest

from engine.domain.config import PRODUCT_REFEREE_PRIOR, EngineConfig
from engine.domain.records import LearnedOutcome
from engine.orchestration.learner import Learner
from learning import make_policy


def test_the_config_keeps_its_own_read_only_copy_of_the_source_weights() -> None:
    weights = {"user": 1.0, "referee": 0.3}
    config = EngineConfig(source_weights=weights)
    weights["referee"] = 0.9  # the caller's dict is theirs: the config does not follow it
    assert config.weight_for("referee") == 0.3
    with pytest.raises(TypeError):
        config.source_weights["referee"] = 0.9  # type: ignore[index]
    assert EngineConfig().weight_for("referee") == PRODUCT_REFEREE_PRIOR == 0.0


def test_the_learner_hands_out_views_no_reader_can_write() -> None:
    learner = Learner(
        {role: make_policy("ucb1", ["a", "b"]) for role in ("path", "tool")},
        context_dim=1,
        history=_one_outcome_each,
    )
    learner.apply([_outcome(1, reward=1.0)])
    tallies = learner.tallies
    assert tallies[("path", "a")].pulls == 1.0
    with pytest.raises(TypeError):
        tallies[("path", "b")] = tallies[("path", "a")]  # type: ignore[index]
    with pytest.raises(TypeError):
        learner.policies["path"] = make_policy("ucb1", ["c"])  # type: ignore[index]
    learner.retire("path", "b", "test")
    assert learner.retired == {("path", "b"): "test"}


def _one_outcome_each(_decision_ids: Sequence[str]) -> list[LearnedOutcome]:
    return []  # each decision here has one outcome: none came before it


def _outcome(seq: int, reward: float) -> LearnedOutcome:
    return LearnedOutcome(
        seq=seq,
        decision_id=f"d{seq}",
        namespace="default",
        source="user",
        reward=reward,
        weight=1.0,
        choices={"path": "a", "tool": "a"},
        context=(0.0,),
    )


def test_the_views_follow_the_learner_through_a_restore() -> None:
    def fresh() -> Learner:
        policies = {role: make_policy("ucb1", ["a", "b"]) for role in ("path", "tool")}
        return Learner(policies, context_dim=1, history=_one_outcome_each)

    source, target = fresh(), fresh()
    source.apply([_outcome(1, reward=1.0), _outcome(2, reward=0.0)])
    tallies = target.tallies  # taken before the restore, as a reader would hold it
    target.restore(
        source.state(), {role: make_policy("ucb1", ["a", "b"]) for role in ("path", "tool")}
    )
    assert tallies[("path", "a")].pulls == 2.0
    assert target.last_seq == 2
