"""The playground's handlers, bound to one engine: plain Python that tests call without a browser.

Errors come back as text for the page, never raised. `ask_live` runs the decision on a worker
thread and yields as each model call starts, each stage finishes and each second passes, so the
page shows what is working and for how long while the model works.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from engine import PROB_BEST_MEANING, ArmStats, Decision, Engine, checker_for
from engine.errors import ThinkPathError
from templates import parse_template
from ui.markup import clip, code_span, plain_text, quoted
from ui.playground.figures import (
    fits_workload,
    posterior_figure,
    regret_figure,
    reward_figure,
)
from ui.playground.views import (
    card_markdown,
    check_set_by,
    cost_markdown,
    shown_answer,
    standing_scores,
    trace_rows,
)
from ui.progress import CALL_TITLES, ProgressQueue, describe_stage, working_on

if TYPE_CHECKING:  # matplotlib loads when a figure is first drawn (`ui.playground.figures`)
    from matplotlib.figure import Figure

__all__ = ["ARM_COLUMNS", "Actions", "ArmsView", "AskView", "ScoreView"]

ARM_COLUMNS = ["role", "arm", "origin", "pulls", "mean", "outcomes", "state", "P(best)", "retired"]
PULLS_NOTE = (
    "*Pulls* count effective observations, all questions together: each score counts with its "
    "weight (yours 1.0, the referee's less), so a fractional count such as 4.5 means some "
    "scores were half-weight; *mean* is the weighted mean of the scores. " + PROB_BEST_MEANING
)
TICK_S = 1.0  # how often the progress line's seconds count up while nothing else happens


@dataclass(frozen=True)
class AskView:
    """Everything the Ask tab shows for one finished (or failed) question."""

    decision_id: str | None
    card: str
    cost: str = ""
    posteriors: Figure | None = None
    trace: list[list[Any]] = field(default_factory=list)
    raw_trace: list[dict[str, Any]] = field(default_factory=list)
    chosen_path: str | None = None
    kind_note: str = ""  # kept with the decision on screen, so a re-drawn card keeps it
    answer: str = ""  # the answer as the card shows it (`shown_answer`), for the copy button


@dataclass(frozen=True)
class ScoreView:
    """What a score changes on the Ask tab: the status line, and the card and the plot drawn
    again from the stored decision (None where nothing was recorded)."""

    status: str
    card: str | None = None
    posteriors: Figure | None = None


@dataclass(frozen=True)
class ArmsView:
    """The Arms tab: a note on what is shown, the table, the posterior and reward figures."""

    note: str
    table: list[list[Any]]
    posteriors: Figure
    rewards: Figure


class Actions:
    """The playground's handlers, bound to one engine."""

    def __init__(self, engine: Engine, clock: Callable[[], float] = time.monotonic) -> None:
        self.engine = engine
        self._clock = clock  # for the elapsed seconds on the progress line

    # -- Ask -------------------------------------------------------------------------------------

    def now(self) -> float:
        """The clock the progress and the card's time read (the page stamps Ask with it)."""
        return self._clock()

    def ask(self, text: str, expected_text: str, answer_kind: str, task: str = "") -> AskView:
        """Decide and return the finished view (the page uses `ask_live` for progress)."""
        *_, (_, view) = self.ask_live(text, expected_text, answer_kind, task)
        assert view is not None
        return view

    def ask_live(
        self,
        text: str,
        expected_text: str,
        answer_kind: str,
        task: str = "",
        asked_at: float | None = None,
    ) -> Iterator[tuple[str, AskView | None]]:
        """Yield (progress so far, None) at once, as each stage finishes or a model call starts
        and each second; then (progress ending in "Done", the view without its plot), and last
        (the same progress, the view with its plot).

        The card comes with "Done": the plot, the slow part to draw and send, follows it.
        `task` names the kind of query (blank: the engine finds it from the query); `asked_at`
        is when Ask was pressed (`now`), so the seconds said are the seconds the user waited.
        """
        began = self._clock() if asked_at is None else asked_at
        try:
            checker, kind_note = expected_checker(expected_text, answer_kind)
        except (ThinkPathError, ValueError) as error:
            yield "", AskView(None, f"**Error:** {error}")
            return
        lines: list[str] = []
        answer_so_far = ""
        # What runs now, named from its first second (`working_on`), and since when.
        working, since = working_on(None), self._clock()
        yield self._working(lines, working, since, began), None
        listener = ProgressQueue()
        events = listener.run(
            # The expected answer is the user's claim: scored as theirs, theirs to correct.
            lambda heard: self.engine.decide(
                text,
                checker=checker,
                listener=heard,
                checked_by="user" if checker else None,
                task=(task or "").strip() or None,
            ),
            TICK_S,
        )
        for kind, value in events:
            if kind == "call":
                working, since = (
                    CALL_TITLES.get(value, f"Calling the model ({value})"),
                    self._clock(),
                )
                answer_so_far = ""
            elif kind == "stage":
                lines.append(f"- {describe_stage(value)} ({value.seconds:.1f} s)")
                working, since = working_on(value), self._clock()
            elif kind == "token":
                answer_so_far += value
                said = plain_text(clip(answer_so_far, 200, keep_end=True))
                yield "\n".join([*lines, f"- *{CALL_TITLES['answer']}:* {said}"]), None
                continue
            if kind == "error":
                if not isinstance(value, ThinkPathError | ValueError):
                    raise value
                yield "\n".join(lines), AskView(None, f"**Error:** {value}")
            elif kind == "done":
                view, waited = self._view(value, kind_note, began)
                lines.append(f"- **Done** in {waited:.1f} s.")
                yield "\n".join(lines), view
                yield "\n".join(lines), replace(view, posteriors=self._paths_figure(value))
            else:
                yield self._working(lines, working, since, began), None

    def _working(self, lines: list[str], working: str, since: float, began: float) -> str:
        """The progress so far, and what runs now with its seconds and the whole wait's."""
        now = self._clock()
        return "\n".join(
            [*lines, f"- *{working}... ({now - since:.0f} s; {now - began:.0f} s in all)*"]
        )

    def _view(self, decision: Decision, kind_note: str, began: float) -> tuple[AskView, float]:
        """The finished view but its plot, and the seconds waited until it was ready."""
        card = card_markdown(decision, kind_note, self._kind_size(decision))
        view = AskView(
            decision_id=decision.id,
            card=card,
            trace=trace_rows(decision),
            raw_trace=decision.model_dump(mode="json")["trace"],
            chosen_path=decision.path.arm_id,
            kind_note=kind_note,
            answer=shown_answer(decision.answer),
        )
        waited = self._clock() - began
        return replace(view, cost=cost_markdown(decision, waited)), waited

    def _kind_size(self, decision: Decision) -> int | None:
        """How many decisions the decision's kind of query has (for "and N more")."""
        if decision.kind is None:
            return None
        sizes = {row["kind"]: row["decisions"] for row in self.engine.kinds()}
        return sizes.get(decision.kind.id)

    def _paths_figure(self, decision: Decision) -> Figure:
        """The path arms, with P(best) for the decision's kind (as the Arms tab shows it)."""
        kind = decision.kind.id if decision.kind is not None else None
        stats = self.engine.arms(kind=kind) if kind is not None else self.engine.arms()
        live = [s for s in stats if s.role == "path" and not s.retired]
        return posterior_figure(live, "path arms", chosen=decision.path.arm_id)

    def score(self, decision_id: str | None, reward: float, kind_note: str = "") -> ScoreView:
        """Record the user's score for the decision on screen, in place of any earlier one of
        theirs (a slip is corrected by scoring again), and draw its card and plot again."""
        if not decision_id:
            return ScoreView("Ask something first (or wait for the current question to finish).")
        try:
            shown = self.engine.get_decision(decision_id)
            before = _user_score(shown)
            # a first score; any later one is a correction (or the same score again)
            result = self.engine.record_outcome(
                decision_id, reward=float(reward), source="user", replace=before is not None
            )
            decision = self.engine.get_decision(decision_id)
        except ThinkPathError as error:
            return ScoreView(f"**Error:** {error}")
        if before is None:
            status = (
                f"Recorded your score {result.reward:.2f} for `{decision_id}`; "
                "score again to correct it."
            )
        elif before == result.reward:
            status = f"Your score was {before:.2f} already; it counts once."
        else:
            # The expected answer the user gave is their claim: scoring corrects its check.
            was = " (the check against your expected answer)" if _claimed(shown) else ""
            status = (
                f"Changed your score from {before:.2f}{was} to {result.reward:.2f}: the new "
                "score takes the place of the old one in what the engine learned."
            )
        card = card_markdown(decision, kind_note, self._kind_size(decision))
        return ScoreView(status, card, self._paths_figure(decision))

    # -- Arms ------------------------------------------------------------------------------------

    def kind_choices(self) -> list[tuple[str, str]]:
        """The kinds of query as (what a person reads, kind id), largest first, for a filter."""
        rows = sorted(self.engine.kinds(), key=lambda row: -int(row["decisions"]))
        return [(kind_label(row), str(row["kind"])) for row in rows]

    def rename_kind(self, kind_id: str | None, name: str) -> str:
        """Name a kind of query; it keeps what it learned, and the name works as a task name."""
        if not kind_id:
            return "Choose a kind of query first."
        try:
            row = self.engine.rename_kind(kind_id, (name or "").strip())
        except ThinkPathError as error:
            return f"**Error:** {error}"
        return (
            f"Named the kind {code_span(kind_id)} {code_span(str(row['name']))}: it keeps what it "
            f"learned, and the task name {code_span(str(row['name']))} now joins it."
        )

    def arms(
        self, query: str = "", chosen: str | None = None, kind: str = "", model: str = ""
    ) -> ArmsView:
        """Every arm, in one order for table and plot; cold/confident and P(best) for a kind of
        query (chosen by its id) or for the kind `query` would join; counted on the decisions of
        one catalogue `model` where one is chosen."""
        asked = (query or "").strip()
        note = []
        one = model or None
        try:
            stats = (
                self.engine.arms(kind=kind, model=one)
                if kind
                else self.engine.arms(asked or None, model=one)
            )
        except ThinkPathError as error:
            stats = self.engine.arms()
            note.append(f"**That query, kind or model cannot be used:** {error}.")
            asked, kind, one = "", "", None
        if one:
            note.append(
                f"Pulls, mean reward and outcomes: the decisions {code_span(one)} answered. "
                "*State* and P(best) are the policies', which learn across models."
            )
        if kind:
            note.append(f"*State* and P(best) for the kind of query {code_span(kind)}.")
        elif asked:
            note.append("*State* and P(best) for the kind of query this question would join.")
        else:
            note.append(
                "*State* (cold or confident) and P(best) are per kind of query, because the "
                "engine learns per kind: choose a kind or type a question above."
            )
        if not any(stat.outcomes for stat in stats):
            note.append("No scores yet: ask something on the Ask tab and score it.")
        note.append(PULLS_NOTE)
        live = [s for s in stats if not s.retired]
        return ArmsView(
            note="\n\n".join(note),
            table=arms_table(stats),
            posteriors=posterior_figure(live, "path and tool arms", chosen=chosen),
            rewards=reward_figure(self.engine.outcome_log()),
        )

    # -- Templates -------------------------------------------------------------------------------

    def templates(self) -> list[list[str]]:
        """Live templates, newest added first, so a new one is at the top."""
        retired = {s.arm_id for s in self.engine.arms() if s.role == "path" and s.retired}
        records = {r.arm_id: r for r in self.engine.path_records()}
        rows = []
        for template in self.engine.templates():
            if template.arm_id in retired:
                continue
            record = records.get(template.arm_id)
            added = record.created_at.strftime("%Y-%m-%d %H:%M:%S UTC") if record else ""
            rows.append(([template.arm_id, template.name, template.description, added], record))
        rows.sort(key=lambda row: row[1].created_at.timestamp() if row[1] else 0.0, reverse=True)
        return [row for row, _ in rows]

    def other_paths(self) -> list[list[str]]:
        """Detour arms (with why each was created) and retired paths (with why)."""
        rows = []
        for record in self.engine.path_records():
            if record.origin != "detour" and record.retired_at is None:
                continue
            why = str(record.definition.get("created_because", "")) or "(not recorded)"
            if record.origin == "template":
                why = "a template"
            status = f"retired: {record.retired_reason}" if record.retired_at else "live"
            rows.append([record.arm_id, record.origin, why, status])
        return rows

    def add_template(self, text: str) -> tuple[str, list[list[str]]]:
        try:
            added = self.engine.add_template(parse_template(text, "new template"))
        except ThinkPathError as error:
            problems = "\n".join(f"- {line}" for line in str(error).splitlines() if line.strip())
            return f"**Not added:**\n\n{problems}", self.templates()
        return f"Added `{added.arm_id}`: it is the first row of the table.", self.templates()

    def ask_to_retire(self, arm_id: str | None, reason: str) -> tuple[str, bool]:
        """The question before a retire, and whether to offer the confirm button."""
        if not arm_id:
            return "Pick a path to retire.", False
        if not reason.strip():
            return "Say why it is retired: the reason is kept with the arm.", False
        return (
            f"Retire `{arm_id}` for good? It will never be chosen again (its statistics stay). "
            "Press **Confirm retire** to go ahead.",
            True,
        )

    def retire(self, arm_id: str | None, reason: str) -> str:
        if not arm_id:
            return "Pick a path to retire."
        try:
            self.engine.retire_template(arm_id, reason)
        except ThinkPathError as error:
            return f"**Not retired:** {error}"
        return f"Retired `{arm_id}`: it will not be chosen again; its statistics stay."

    def live_path_ids(self) -> list[str]:
        return [s.arm_id for s in self.engine.arms() if s.role == "path" and not s.retired]

    # -- Simulate --------------------------------------------------------------------------------

    def policies_for(self, workload: str, policies: list[str]) -> list[str]:
        """The names offered for `workload`: those that can run on it."""
        del policies  # the offer depends on the workload only
        from learning import available_policies  # noqa: PLC0415 - kept beside its one use

        return [name for name in available_policies() if fits_workload(name, workload)]

    def simulate(
        self, policies: list[str], workload: str, steps: float, runs: float
    ) -> tuple[Figure | None, str]:
        if not policies:
            return None, "Pick at least one policy."
        try:
            return regret_figure(policies, workload, int(steps), int(runs)), ""
        except (ThinkPathError, ValueError) as error:
            return None, f"**Error:** {error}"


def kind_label(row: dict[str, Any]) -> str:
    """A kind of query as the Arms tab lists it: its name or id, size and first question."""
    name = row["name"] or row["kind"]
    example = clip(str(row["example"]), 50)
    return f"{name} ({row['decisions']} asked) - like {quoted(example)}"


def arms_table(stats: list[ArmStats]) -> list[list[Any]]:
    """One row per arm; P(best) the engine's own for the kind the stats were read for
    (`engine.PROB_BEST_MEANING`), blank without one, as in /api/v1/arms."""
    return [
        [
            stat.role,
            stat.arm_id,
            stat.origin,
            round(stat.pulls, 2),
            None if stat.mean_reward is None else round(stat.mean_reward, 3),
            stat.outcomes,
            "cold" if stat.cold else ("confident" if stat.cold is False else "-"),
            None if stat.prob_best is None else round(stat.prob_best, 3),
            stat.retired_reason or "",
        ]
        for stat in stats
    ]


def _user_score(decision: Decision) -> float | None:
    """The user's standing score (their latest correction), if any."""
    scores = [o.reward for o in standing_scores(decision.outcomes) if o.source == "user"]
    return scores[0] if scores else None


def _claimed(decision: Decision) -> bool:
    """Whether the user's standing score is still the check of the expected answer they gave."""
    mine = [o for o in standing_scores(decision.outcomes) if o.source == "user"]
    return check_set_by(decision) == "user" and bool(mine) and mine[0].revision == 0


def expected_checker(
    expected_text: str, answer_kind: str
) -> tuple[Callable[[str], float] | None, str]:
    """The engine's checker for the expected answer (`engine.checker_for`, the one builder), and
    a note when its kind was inferred.

    Raises `ValueError` when the expected answer does not fit its kind, so the user hears it
    before the model is asked.
    """
    if not expected_text.strip():
        return None, ""
    checker = checker_for(expected_text, answer_kind or None)
    note = ""
    if checker.inferred:
        note = (
            f"*The expected answer was checked as **{checker.kind}** (inferred, since no answer "
            "kind was chosen; pick one to change it).*"
        )
    return checker, note
