"""Scores on the Ask tab: corrected in place, shown on the card at once, contradictions flagged.

The engine's `record_outcome(..., replace=True)` comes with the engine's score-correction change;
`CorrectingEngine` stands in for it here, over a real scripted engine.
"""

from dataclasses import dataclass, field
from typing import Any, cast

from engine.domain.models import Decision, OutcomeResult
from engine.orchestration.facade import Engine
from ui.playground import Actions


@dataclass
class CorrectingEngine:
    """A real engine whose `record_outcome` takes `replace`, as the engine's change has it: a
    correction is a new outcome of the same source, later in the log, which `get_decision`
    lists beside the one it corrects (the inner engine learns only the first)."""

    inner: Engine
    calls: list[tuple[str, str, float | None, bool]] = field(default_factory=list)
    corrections: dict[str, list[OutcomeResult]] = field(default_factory=dict)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def record_outcome(
        self,
        decision_id: str,
        source: str = "user",
        reward: float | None = None,
        weight: float | None = None,
        *,
        replace: bool = False,
    ) -> OutcomeResult:
        self.calls.append((decision_id, source, reward, replace))
        earlier = [o for o in self.get_decision(decision_id).outcomes if o.source == source]
        if not (replace and earlier):
            return self.inner.record_outcome(decision_id, source, reward, weight)
        if earlier[-1].reward == reward:  # the value that stands already: nothing recorded
            return earlier[-1].model_copy(update={"applied": False})
        seq = max(o.seq for o in self.get_decision(decision_id).outcomes) + 1
        new = earlier[-1].model_copy(update={"reward": reward, "seq": seq})
        self.corrections.setdefault(decision_id, []).append(new)
        return new

    def get_decision(self, decision_id: str) -> Decision:
        decision = self.inner.get_decision(decision_id)
        outcomes = [*decision.outcomes, *self.corrections.get(decision_id, [])]
        return decision.model_copy(update={"outcomes": outcomes})


def _actions(engine: Engine) -> tuple[Actions, CorrectingEngine]:
    fake = CorrectingEngine(engine)
    return Actions(cast(Engine, fake)), fake


def test_wrong_then_correct_replaces_the_score_and_redraws_the_card(engine: Engine) -> None:
    actions, fake = _actions(engine)
    view = actions.ask("What is the capital of Australia?", "", "")
    assert view.decision_id is not None
    assert "not scored yet" not in view.card  # the referee scored it
    wrong = actions.score(view.decision_id, 0.0)
    assert wrong.status.startswith("Recorded your score 0.00")
    assert wrong.card is not None
    assert "**Score:** 0.00, by you" in wrong.card
    right = actions.score(view.decision_id, 1.0)
    assert right.status.startswith("Changed your score from 0.00 to 1.00")
    assert right.card is not None
    assert "**Score:** 1.00, by you" in right.card
    assert "0.00, by you" not in right.card
    assert right.posteriors is not None
    assert [call[3] for call in fake.calls] == [False, True]  # the second one corrects
    assert right.card.count("by you") == 1  # the correction stands in place of the first
    again = actions.score(view.decision_id, 1.0)
    assert "already" in again.status
    assert [call[3] for call in fake.calls] == [False, True, True]  # the same, as a correction


def test_a_user_score_contradicting_the_exact_check_is_flagged(engine: Engine) -> None:
    actions, _ = _actions(engine)
    view = actions.ask("What is 2 + 3?", "5", "")
    assert view.decision_id is not None
    assert "by the exact check" in view.card
    assert "Flag" not in view.card
    flagged = actions.score(view.decision_id, 0.0, view.kind_note)
    assert flagged.card is not None
    assert "**Flag: your score (0.00) contradicts the exact check (1.00).**" in flagged.card
    assert "checked as **numeric** (inferred" in flagged.card  # the kind note survives
    agreed = actions.score(view.decision_id, 1.0, view.kind_note)
    assert agreed.card is not None
    assert "Flag" not in agreed.card


def test_a_score_without_a_decision_changes_nothing(engine: Engine) -> None:
    actions, fake = _actions(engine)
    assert actions.score(None, 1.0).card is None
    failed = actions.score("nope", 1.0)
    assert failed.status.startswith("**Error:**")
    assert failed.card is None
    assert fake.calls == []
