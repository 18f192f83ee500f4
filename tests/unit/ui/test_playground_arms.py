"""The Arms tab: P(best) is the engine's for a kind, one weighting, tools plotted."""

import numpy as np
import pytest

from engine.domain.models import ArmStats
from engine.domain.records import LearnedOutcome
from engine.orchestration.facade import Engine
from ui.playground import ARM_COLUMNS, Actions
from ui.playground.figures import reward_figure

ROLE, ARM, PULLS, MEAN, OUTCOMES, STATE, PROB_BEST = (
    ARM_COLUMNS.index(name)
    for name in ("role", "arm", "pulls", "mean", "outcomes", "state", "P(best)")
)


def _arm(arm: str, pulls: float, mean: float | None, role: str = "path") -> ArmStats:
    return ArmStats(
        role=role, arm_id=arm, origin="template", pulls=pulls, mean_reward=mean, outcomes=0
    )


def test_prob_best_is_the_engines_for_a_kind_and_blank_without_one(engine: Engine) -> None:
    """The tab showed calculator 0.031 for a kind where /api/v1/arms said 0.099 (issue 40): its
    own Beta posteriors over every question against the engine's policy for the kind. Now the
    table and the plot show the engine's number for the kind, and none without a kind."""
    actions = Actions(engine)
    view = actions.ask("What is 2 + 3?", "5", "numeric")
    decision = engine.get_decision(str(view.decision_id))
    assert decision.kind is not None
    kind = decision.kind.id
    truth = {(s.role, s.arm_id): s.prob_best for s in engine.arms(kind=kind)}
    shown = actions.arms(kind=kind)
    for row in shown.table:
        expected = truth[(row[ROLE], row[ARM])]
        assert row[PROB_BEST] == (None if expected is None else round(expected, 3)), row
    live = [row for row in shown.table if not row[-1]]
    _, best_axis = shown.posteriors.axes
    bars = [bar.get_width() for bar in best_axis.containers[0]]
    assert bars == pytest.approx([truth[(r[ROLE], r[ARM])] for r in live], abs=1e-9)
    assert "P(best) is, for one kind of query" in shown.note
    assert "all questions together" not in shown.note.split("P(best) is")[1]
    # no kind, no P(best): none of a second kind computed over every question
    unkinded = actions.arms()
    assert {row[PROB_BEST] for row in unkinded.table} == {None}
    assert "P(best) are per kind of query" in unkinded.note
    # the Ask tab's plot shows the decision's kind's P(best) too
    assert view.posteriors is not None
    path_bars = [bar.get_width() for bar in view.posteriors.axes[1].containers[0]]
    paths = [s for s in engine.arms(kind=kind) if s.role == "path" and not s.retired]
    assert path_bars == pytest.approx([s.prob_best for s in paths], abs=1e-9)


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


def test_the_arms_tab_counts_on_one_model_or_says_why_it_cannot(engine: Engine) -> None:
    actions = Actions(engine)
    view = actions.ask("What is 2 + 3?", "5", "numeric")
    assert view.decision_id is not None
    [model] = list(engine.models)
    one = actions.arms(model=model)
    assert f"the decisions `{model}` answered" in one.note
    assert [r[PULLS] for r in one.table if r[ROLE] == "path"] == [
        r[PULLS] for r in actions.arms().table if r[ROLE] == "path"
    ]  # one model answered every decision
    unknown = actions.arms(model="local/none")
    assert "cannot be used" in unknown.note
    assert "not in the catalogue" in unknown.note
