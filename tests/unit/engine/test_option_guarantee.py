"""The guarantee for questions with options whatever is retired (issue 39, item 2): the last
path that chooses on any model cannot be retired, and a question with options that no live
path can choose for is answered degraded, with the reason."""

import pytest

from engine.errors import TemplateError
from engine.orchestration import arm_book
from engine.orchestration.facade import Engine
from tests.unit.engine.test_option_arms import LETTERED, choosing, engine_with

OPTION_ARMS = ("choose_an_option", "reason_then_choose", "likeliest_option")


def live_paths(engine: Engine) -> set[str]:
    return {row.arm_id for row in engine.arms() if row.role == "path" and not row.retired}


def test_the_last_path_that_chooses_on_any_model_cannot_be_retired() -> None:
    engine, _ = engine_with(choosing(1))
    engine.retire_template("likeliest_option", "needs scores")  # not one that counts
    engine.retire_template("choose_an_option", "superseded")
    with pytest.raises(TemplateError, match="last live path that answers with an option"):
        engine.retire_template("reason_then_choose", "cleaning up")
    assert "reason_then_choose" in live_paths(engine)
    # a free-text path is not held back by the guard
    engine.retire_template("direct_answer", "not wanted")
    assert "direct_answer" not in live_paths(engine)


def test_retiring_one_option_path_among_several_is_allowed() -> None:
    engine, _ = engine_with(choosing(1))
    engine.retire_template("reason_then_choose", "too slow")
    assert {"choose_an_option", "likeliest_option"} <= live_paths(engine)
    decision = engine.decide(LETTERED)
    assert decision.answer in ("A", "B", "C")
    assert not any("offers options" in reason for reason in decision.degraded_reasons)


def without_option_arms(monkeypatch: pytest.MonkeyPatch) -> Engine:
    """An engine whose option paths were all retired by a process without the guard (an
    older replica sharing the store), which this one adopted."""
    engine, _ = engine_with(choosing(1))
    with monkeypatch.context() as patched:
        patched.setattr(arm_book, "last_option_arm", lambda *_: None)
        for arm in OPTION_ARMS:
            engine.retire_template(arm, "retired by an older replica")
    assert not live_paths(engine) & set(OPTION_ARMS)
    return engine


@pytest.mark.parametrize(
    ("question", "options"),
    [
        ("Which is purple? (A) green (B) red (C) purple", None),
        ("Which team handles a double charge?", ["billing", "technical"]),
    ],
)
def test_a_question_with_options_and_no_path_to_choose_is_degraded_with_the_reason(
    monkeypatch: pytest.MonkeyPatch, question: str, options: list[str] | None
) -> None:
    engine = without_option_arms(monkeypatch)
    decision = engine.decide(question, options=options)
    assert decision.degraded
    reason = next(r for r in decision.degraded_reasons if r.startswith("selection:"))
    assert "offers options, but no live path answers with one" in reason
    assert "choose_an_option" not in decision.step("selection").outputs["not_candidates"]
    assert decision.step("options").outputs  # what was read is still on the card


def test_an_open_question_is_not_degraded_by_missing_option_paths(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    engine = without_option_arms(monkeypatch)
    decision = engine.decide("Why do leaves change colour in autumn?")
    assert not any(r.startswith("selection:") for r in decision.degraded_reasons)
