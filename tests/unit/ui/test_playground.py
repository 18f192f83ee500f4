"""The playground's actions and views, without a browser (the browser test drives the page)."""

from engine.core.facade import Engine
from ui.playground import ARM_COLUMNS, Actions

ROLE, ARM, OUTCOMES, STATE, PROB_BEST = (
    ARM_COLUMNS.index(name) for name in ("role", "arm", "outcomes", "state", "P(best)")
)


def test_ask_score_and_arms(engine: Engine) -> None:
    actions = Actions(engine)
    decision_id, answer, *_ = actions.ask("What is 2 + 3?", "5", "numeric")
    assert answer.endswith("Answer: 5")
    assert "Recorded your score 0.00" in actions.score(decision_id, 0.0)
    assert "recorded before" in actions.score(decision_id, 0.0)

    table, posteriors, rewards = actions.arms("What is 2 + 3?")
    chosen = engine.get_decision(decision_id).path
    assert chosen is not None
    row = next(r for r in table if r[ROLE] == "path" and r[ARM] == chosen.arm_id)
    assert row[OUTCOMES] == 2  # the checker's and the user's
    assert {r[STATE] for r in table if r[ROLE] == "path"} <= {"cold", "confident"}
    assert sum(r[PROB_BEST] for r in table if r[ROLE] == "path") > 0.99
    assert posteriors.axes
    assert rewards.axes[0].get_lines()  # the chosen arm has a reward line


def test_errors_come_back_as_text(engine: Engine) -> None:
    actions = Actions(engine)
    assert actions.ask("", "", "")[4].startswith("**Error:**")
    assert actions.ask("What is 1 + 1?", "soon", "date")[4].startswith("**Error:**")
    assert actions.score(None, 1.0) == "Ask something first."
    assert actions.score("nope", 1.0).startswith("**Error:**")
    status, _ = actions.add_template('id = "x"')
    assert status.startswith("**Not added:**")
    figure, message = actions.simulate([], "stationary", 100, 1)
    assert figure is None
    assert message == "Pick at least one policy."


def test_simulate_draws_one_curve_per_policy(engine: Engine) -> None:
    figure, message = Actions(engine).simulate(["thompson", "ucb1"], "stationary", 200, 2)
    assert message == ""
    assert figure is not None
    assert len(figure.axes[0].get_lines()) == 2
