"""Stages 3-7 together: read the policies, rate if cold, detour if triggered, pick path and tool.

The chooser reads one immutable `PolicyView` from the arm book, makes its LLM calls without any
lock held, and hands new detour arms back to the book: it holds no learning state of its own.
"""

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from engine.domain.config import EngineConfig
from engine.domain.models import Candidate
from engine.domain.ports import ToolBox
from engine.domain.records import NO_TOOL, PathDefinition
from engine.orchestration.arm_book import ArmBook, PolicyView
from engine.orchestration.run_state import RunState, run_stage
from engine.stages import detour, rating, selection, tools


@dataclass(frozen=True)
class Choices:
    """What selection decided: candidates, the path and tool picks, the tool's input."""

    candidates: list[Candidate]
    path: selection.Pick
    path_definition: PathDefinition
    tool: selection.Pick
    tool_argument: str | None
    explored: bool  # a rating or detour call was made: the decision is off the warm path


class Chooser:
    """Chooses a path and a tool for one decision from the shared learner."""

    def __init__(self, *, book: ArmBook, toolbox: ToolBox | None, config: EngineConfig) -> None:
        self._book = book
        self._toolbox = toolbox
        self._config = config
        self._rng = np.random.default_rng(config.seed)

    def choose(
        self, run: RunState, *, referee_calls: int, force_path: str | None = None
    ) -> Choices:
        """Rate if cold, detour if triggered, then pick a path and a tool.

        A forced path (the caller named it) is taken with propensity 1: no detour is tried, and
        the rating call runs only when the tool policy explores.
        """
        view = self._book.view(run.context)
        scores: dict[str, int] = {}
        suggestion = None
        explores = view.draws_cold if force_path is None else view.tool_draw.arm in view.cold_tools
        if explores:
            found = self._rate(run, view, later_calls=2 + referee_calls)
            if found is not None:
                scores, suggestion = found.scores, found
        else:
            why = "the policies chose warm arms: nothing to explore"
            if force_path is not None:
                why = "the path is forced and the tool policy chose a warm tool"
            run.trace.add("rating", "skipped", run.trace.start(), outputs={"why": why})
        if force_path is None:
            trigger = self._detour_trigger(run, view)
        else:
            trigger = None
            why = f"the caller forced the path {force_path!r}"
            run.trace.add("detour", "skipped", run.trace.start(), outputs={"why": why})
        fresh = []
        if trigger:
            fresh = self._detour(run, view, trigger, later_calls=1 + referee_calls)
        if fresh:
            self._book.add_detours(fresh, trigger or "")
        if force_path is None:
            path_pick = self._pick_path(run, view, scores, fresh)
        else:
            path_pick = selection.Pick(force_path, 1.0, "forced")
            run.trace.add(
                "selection",
                "forced",
                run.trace.start(),
                inputs={"policy_draw": view.path_draw.arm},
                outputs={"arm": force_path, "propensity": 1.0},
            )
        tool_pick = self._pick_tool(run, view, suggestion)
        min_rating = self._config.min_rating_to_explore
        listed = [
            Candidate(
                arm_id=path.arm_id,
                name=path.name,
                origin="detour" if path.origin == "detour" else "template",
                rating=scores.get(path.arm_id),
                filtered=path.arm_id in scores and scores[path.arm_id] < min_rating,
                cold=path.arm_id in view.cold_paths or path in fresh,
                prob_best=view.prob_best.get(path.arm_id),
                propensity=view.propensities.get(path.arm_id),
            )
            for path in [*view.live, *fresh]
        ]
        argument = (
            suggestion.tool_argument if suggestion and suggestion.tool == tool_pick.arm else None
        )
        chosen = next(p for p in [*view.live, *fresh] if p.arm_id == path_pick.arm)
        explored = explores or trigger is not None
        return Choices(listed, path_pick, chosen, tool_pick, argument, explored)

    def _detour_trigger(self, run: RunState, view: PolicyView) -> str | None:
        """The detour's trigger, or None with the reason it did not fire traced."""
        rules = self._config.detour
        started = run.trace.start()
        if view.cold_detours:
            why = f"detour arms still on trial: {', '.join(view.cold_detours)}"
        elif len(view.live_detours) >= rules.max_live_detours:
            why = f"already {len(view.live_detours)} live detour arms (the most allowed)"
        else:
            trigger = detour.detour_trigger(
                view.prob_best, list(view.recent), rules, any_cold=bool(view.cold_paths)
            )
            if trigger is not None:
                return trigger
            why = "paths are neither failing repeatedly nor all unconvincing"
        run.trace.add("detour", "skipped", started, outputs={"why": why})
        return None

    def _rate(self, run: RunState, view: PolicyView, later_calls: int) -> rating.Rating | None:
        started = run.trace.start()
        inputs = {"cold_paths": list(view.cold_paths), "cold_tools": list(view.cold_tools)}
        tools_described = {NO_TOOL: "answer without a tool"}
        if self._toolbox is not None:
            tools_described.update(self._toolbox.describe())
        found = run_stage(
            run,
            "rating",
            lambda: rating.rate_paths(
                run.meter,
                run.query,
                list(view.live),
                tools_described,
                retries=run.retries(later_calls, warm=False),
                timeout_s=self._config.llm_timeout_s,
            ),
            started=started,
            optional="no call left for rating besides the answer",
            inputs=inputs,
        )
        if found is None:
            return None
        run.trace.add(
            "rating",
            "done",
            started,
            inputs=inputs,
            outputs={
                "scores": found.scores,
                "tool": found.tool,
            },
        )
        return found

    def _detour(
        self, run: RunState, view: PolicyView, trigger: str, later_calls: int
    ) -> list[PathDefinition]:
        started = run.trace.start()
        fresh = run_stage(
            run,
            "detour",
            lambda: detour.generate_paths(
                run.meter,
                run.query,
                list(view.live),
                self._config.detour,
                known_ids=set(self._book.known_path_ids()),
                retries=run.retries(later_calls, warm=False),
                timeout_s=self._config.llm_timeout_s,
            ),
            started=started,
            optional=f"triggered ({trigger}) but no call left",
            inputs={"trigger": trigger},
        )
        if fresh is None:
            return []
        run.trace.add(
            "detour",
            "detour_trigger",
            started,
            inputs={"trigger": trigger},
            outputs={"new_arms": [p.arm_id for p in fresh]},
        )
        return fresh

    def _pick_path(
        self,
        run: RunState,
        view: PolicyView,
        scores: Mapping[str, int],
        fresh: list[PathDefinition],
    ) -> selection.Pick:
        started = run.trace.start()
        pick = None
        if fresh:  # the model's fresh paths lead, as any cold arm's pick does
            arm = fresh[int(self._rng.integers(len(fresh)))].arm_id
            pick = selection.Pick(arm, 1.0 / len(fresh), "detour_trigger")
        elif scores and view.path_draw.arm in view.cold_paths:
            pick = selection.choose_cold(
                list(view.cold_paths),
                scores,
                self._rng,
                min_rating=self._config.min_rating_to_explore,
                cold_mass=view.cold_path_mass,
            )
        if pick is None:
            pick = view.path_draw
        run.trace.add(
            "selection",
            pick.reason,
            started,
            inputs={
                "cold": list(view.cold_paths),
                "prob_best": dict(view.prob_best),
                "policy_draw": view.path_draw.arm,
            },
            outputs={"arm": pick.arm, "propensity": pick.propensity},
        )
        return pick

    def _pick_tool(
        self, run: RunState, view: PolicyView, suggestion: rating.Rating | None
    ) -> selection.Pick:
        started = run.trace.start()
        explores = view.tool_draw.arm in view.cold_tools
        # Exploring: the kind of query names its tool first (`tools.prior_tool`), then the model.
        prior = tools.prior_tool(run.query, view.cold_tools) if explores else None
        if prior is not None:
            pick = selection.Pick(prior, view.cold_tool_mass, "cold_start")
        elif explores and suggestion is not None and suggestion.tool in view.cold_tools:
            pick = selection.Pick(suggestion.tool, view.cold_tool_mass, "cold_start")
        else:
            pick = view.tool_draw
        run.trace.add(
            "tool_selection",
            pick.reason,
            started,
            inputs={"cold": list(view.cold_tools)},
            outputs={"arm": pick.arm, "propensity": pick.propensity},
        )
        return pick
