"""Scores on the Ask tab: corrected in place, shown on the card at once, an expected answer's
check corrected like any score of the user's."""

from engine.orchestration.facade import Engine
from ui.playground import Actions


def test_wrong_then_correct_replaces_the_score_and_redraws_the_card(engine: Engine) -> None:
    actions = Actions(engine)
    view = actions.ask("What is the capital of Australia?", "", "")
    assert view.decision_id is not None
    assert "not scored yet" in view.card  # no checker, and the referee was never measured
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
    # the second score is recorded as a correction of the first, never as a second outcome
    outcomes = engine.get_decision(view.decision_id).outcomes
    mine = [(o.revision, o.reward) for o in outcomes if o.source == "user"]
    assert mine == [(0, 0.0), (1, 1.0)]
    assert right.card.count("by you") == 1  # the correction stands in place of the first
    again = actions.score(view.decision_id, 1.0)
    assert "already" in again.status
    after = engine.get_decision(view.decision_id).outcomes
    assert len(after) == len(outcomes)  # the same score again records nothing


def test_the_expected_answer_is_the_users_claim_and_scoring_corrects_it(engine: Engine) -> None:
    actions = Actions(engine)
    view = actions.ask("What is 6 * 7?", "43", "")  # a wrong expected answer
    assert view.decision_id is not None
    assert (
        "**Score:** 0.00, by the exact check against the expected answer you gave (the check was "
        "set by you, and only you can correct it: score again)"
    ) in view.card
    corrected = actions.score(view.decision_id, 1.0, view.kind_note)
    assert corrected.status.startswith(
        "Changed your score from 0.00 (the check against your expected answer) to 1.00"
    )
    assert corrected.card is not None
    assert "**Score:** 1.00, by you, correcting the check against the expected answer" in (
        corrected.card
    )
    assert "0.00" not in corrected.card.split("**Score:**", 1)[1]  # the claim's place, taken
    assert "checked as **numeric** (inferred" in corrected.card  # the kind note survives
    decision = engine.get_decision(view.decision_id)
    arm = next(a for a in engine.arms() if (a.role, a.arm_id) == ("path", decision.path.arm_id))
    assert (arm.outcomes, arm.mean_reward) == (1, 1.0)  # the correction took effect


def test_a_score_without_a_decision_changes_nothing(engine: Engine) -> None:
    actions = Actions(engine)
    assert actions.score(None, 1.0).card is None
    failed = actions.score("nope", 1.0)
    assert failed.status.startswith("**Error:**")
    assert failed.card is None
