"""The Arms tab: P(best) agrees with the posteriors it draws, one weighting, tools plotted."""

import numpy as np
import pytest

from engine.domain.models import ArmStats
from engine.domain.records import LearnedOutcome
from engine.orchestration.facade import Engine
from ui.playground import ARM_COLUMNS, Actions
from ui.playground.figures import beta_parameters, reward_figure, shown_prob_best

ROLE, ARM, PULLS, MEAN, OUTCOMES, STATE, PROB_BEST = (
    ARM_COLUMNS.index(name)
    for name in ("role", "arm", "pulls", "mean", "outcomes", "state", "P(best)")
)


def _arm(arm: str, pulls: float, mean: float | None, role: str = "path") -> ArmStats:
    return ArmStats(
        role=role, arm_id=arm, origin="template", pulls=pulls, mean_reward=mean, outcomes=0
    )


def _monte_carlo(stats: list[ArmStats], draws: int = 400_000) -> np.ndarray:
    alpha, beta = beta_parameters(stats)
    samples = np.random.default_rng(7).beta(alpha, beta, size=(draws, len(stats)))
    return np.bincount(samples.argmax(axis=1), minlength=len(stats)) / draws


@pytest.mark.parametrize(
    "stats",
    [
        # the case: one arm at 2 of 3 (posterior mean 0.6), eleven untried
        [_arm("good", 3.0, 2 / 3)] + [_arm(f"new_{i}", 0.0, None) for i in range(11)],
        # weighted scores: 4.5 effective pulls, means that are not k / n
        [_arm("a", 4.5, 0.5555), _arm("b", 1.0, 1.0), _arm("c", 7.25, 0.31)],
    ],
)
def test_prob_best_agrees_with_a_monte_carlo_estimate_on_the_same_posteriors(
    stats: list[ArmStats],
) -> None:
    shown = np.array(shown_prob_best(stats), dtype=float)
    assert shown == pytest.approx(_monte_carlo(stats), abs=0.005)
    assert shown.sum() == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize(("untried", "exact"), [(2, 12 / 30), (11, 12 / 210)])
def test_a_tried_arm_gets_the_chance_its_posterior_gives_it(untried: int, exact: float) -> None:
    # Beta(3, 2) against `untried` uniform posteriors: P(best) = integral of 12 x^2 (1 - x) x^k,
    # 0.4 against two (it leads), 0.057 against eleven (one of eleven unknowns is likely above
    # 0.9). The table showed 1/12 = 0.083, the policy's figure for a kind of question it had no
    # score for, beside a plot of the scores of every kind: the two now come from one posterior.
    stats = [_arm("good", 3.0, 2 / 3)] + [_arm(f"new_{i}", 0.0, None) for i in range(untried)]
    best = shown_prob_best(stats)
    assert best[0] == pytest.approx(exact, abs=0.002)
    assert len({round(chance or 0.0, 6) for chance in best[1:]}) == 1  # untried arms alike


def test_prob_best_is_within_each_role_and_absent_for_retired_arms() -> None:
    retired = _arm("old", 3.0, 1.0).model_copy(update={"retired": True})
    stats = [_arm("p1", 2.0, 1.0), _arm("p2", 2.0, 0.0), retired]
    stats += [_arm("calculator", 1.0, 1.0, "tool"), _arm("none", 1.0, 1.0, "tool")]
    best = shown_prob_best(stats)
    assert best[2] is None
    assert (best[0] or 0) + (best[1] or 0) == pytest.approx(1.0, abs=1e-3)
    assert best[3] == pytest.approx(0.5, abs=1e-3)  # equal tools tie exactly


def test_after_a_score_table_and_plot_show_the_same_numbers_tools_included(
    engine: Engine,
) -> None:
    actions = Actions(engine)
    view = actions.ask("What is 2 + 3?", "5", "numeric")
    assert view.decision_id is not None
    actions.score(view.decision_id, 1.0)
    arms = actions.arms("What is 2 + 3?", view.chosen_path)
    decision = engine.get_decision(view.decision_id)
    row = next(r for r in arms.table if r[ROLE] == "path" and r[ARM] == decision.path.arm_id)
    stat = next(s for s in engine.arms() if s.role == "path" and s.arm_id == row[ARM])
    assert row[OUTCOMES] == stat.outcomes >= 1  # the table says what the engine learned
    assert row[PULLS] == round(stat.pulls, 2)
    assert row[MEAN] == 1.0  # the checker and the user agree: right
    assert {r[STATE] for r in arms.table if r[ROLE] == "path"} <= {"cold", "confident"}
    live = [r for r in arms.table if not r[-1]]
    means_axis, best_axis = arms.posteriors.axes
    labels = [t.get_text() for t in means_axis.get_yticklabels()]
    assert f"{decision.path.arm_id}  (chosen)" in labels
    assert f"tool: {decision.tool.arm_id}" in labels
    bars = [bar.get_width() for bar in best_axis.containers[0]]
    assert bars == pytest.approx([r[PROB_BEST] for r in live], abs=0.001)
    best_row = max((r for r in live if r[ROLE] == "path"), key=lambda r: r[PROB_BEST])
    assert best_row is row  # the only arm scored right is the likeliest best
    path_axis, tool_axis = arms.rewards.axes
    assert [line.get_label() for line in path_axis.get_lines()] == [decision.path.arm_id]
    assert tool_axis.get_lines()  # tools have reward lines too
    for axis, role in ((path_axis, "path"), (tool_axis, "tool")):  # a point per counted decision
        for line in axis.get_lines():
            counted = next(
                s for s in engine.arms() if (s.role, s.arm_id) == (role, line.get_label())
            )
            assert len(np.asarray(line.get_xdata())) == counted.outcomes


def test_reward_lines_are_weighted_like_the_table() -> None:
    """One decision counts once, by its outcome in force (`engine.domain.evidence`), and
    decisions are weighted: the line ends at the table's mean."""

    def outcome(
        seq: int, decision: str, reward: float, weight: float, source: str
    ) -> LearnedOutcome:
        choices = {"path": "p", "tool": "calculator"}
        return LearnedOutcome(seq, decision, "default", choices, None, source, reward, weight)

    figure = reward_figure(
        [
            outcome(1, "d", 1.0, 1.0, "user"),
            outcome(2, "d", 0.0, 0.5, "referee"),  # outranked by the user's score: no change
            outcome(3, "d", 0.0, 1.0, "tool"),  # the tool's own failure teaches the tool only
            outcome(4, "e", 0.0, 0.5, "referee"),  # a second decision, at the referee's weight
            outcome(5, "e", 1.0, 1.0, "user#1"),  # ...until a user's score replaces it
        ]
    )
    path_axis, tool_axis = figure.axes
    (path_line,) = path_axis.get_lines()
    # one point per decision (a replaced score moves the decision's point): as the table counts
    assert np.asarray(path_line.get_xdata()).tolist() == [1, 2]
    assert np.asarray(path_line.get_ydata()).tolist() == pytest.approx([1.0, 1.0])
    (tool_line,) = tool_axis.get_lines()
    assert np.asarray(tool_line.get_ydata()).tolist() == pytest.approx([0.0, 0.5])
