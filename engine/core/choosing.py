"""Stages 3-7 together: read the policies, rate if cold, detour if triggered, pick path and tool.

The lock is held only while reading or changing the policies, never during an LLM call, so a slow
model does not stall other decisions' bookkeeping.
"""

import threading
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from engine.core.config import EngineConfig
from engine.core.learner import Learner
from engine.core.models import Candidate
from engine.core.ports import ToolBox
from engine.core.records import NO_TOOL, PathDefinition
from engine.core.run_state import RunState
from engine.core.trace import LLM_FAULTS
from engine.stages import candidates, detour, rating, selection, tools


@dataclass(frozen=True)
class Choices:
    """What selection decided: candidates, the path and tool picks, the tool's input, new arms."""

    candidates: list[Candidate]
    path: selection.Pick
    tool: selection.Pick
    tool_argument: str | None
    new_paths: list[PathDefinition]
    detour_reason: str | None


@dataclass(frozen=True)
class PolicyView:
    """What the policies say about this query, read once under the lock."""

    live: list[PathDefinition]
    cold_paths: list[str]
    cold_tools: list[str]
    live_detours: list[str]
    cold_detours: list[str]
    prob_best: dict[str, float]
    propensities: dict[str, float]  # rounded, for the record
    exact_propensities: dict[str, float]
    recent: list[float]
    path_draw: selection.Pick  # the policies' own choices, drawn in this state
    tool_draw: selection.Pick
    cold_tool_mass: float  # the tool policy's probability of drawing a cold tool

    @property
    def cold_path_mass(self) -> float:
        """The path policy's probability of drawing a cold arm."""
        return sum(self.exact_propensities.get(arm, 0.0) for arm in self.cold_paths)

    @property
    def draws_cold(self) -> bool:
        """Did either policy choose to explore a cold arm?"""
        return self.path_draw.arm in self.cold_paths or self.tool_draw.arm in self.cold_tools

    @classmethod
    def take(
        cls, learner: Learner, paths: Mapping[str, PathDefinition], context: list[float]
    ) -> "PolicyView":
        path_policy = learner.policies["path"]
        path_context = learner.policy_context("path", context)
        tool_context = learner.policy_context("tool", context)
        live = candidates.live_candidates(path_policy.arms, paths)
        cold_paths = selection.cold_arms(path_policy, path_context)
        live_detours = [p.arm_id for p in live if p.origin == "detour"]
        propensities = {k: float(v) for k, v in path_policy.probabilities(path_context).items()}
        tool_policy = learner.policies["tool"]
        tool_propensities = tool_policy.probabilities(tool_context)
        cold_tools = selection.cold_arms(tool_policy, tool_context)
        return cls(
            live=live,
            cold_paths=cold_paths,
            cold_tools=cold_tools,
            live_detours=live_detours,
            cold_detours=[arm for arm in live_detours if arm in cold_paths],
            prob_best={
                k: round(float(v), 4) for k, v in path_policy.prob_best(path_context).items()
            },
            propensities={k: round(v, 4) for k, v in propensities.items()},
            exact_propensities=propensities,
            recent=learner.recent_rewards(context),
            path_draw=selection.choose_by_posterior(path_policy, path_context, propensities),
            tool_draw=selection.choose_by_posterior(tool_policy, tool_context, tool_propensities),
            cold_tool_mass=sum(float(tool_propensities.get(arm, 0.0)) for arm in cold_tools),
        )


class Chooser:
    """Chooses a path and a tool for one decision from the shared learner."""

    def __init__(
        self,
        *,
        learner: Learner,
        paths: dict[str, PathDefinition],
        toolbox: ToolBox | None,
        config: EngineConfig,
        lock: threading.RLock,
    ) -> None:
        self._learner = learner
        self._paths = paths
        self._toolbox = toolbox
        self._config = config
        self._lock = lock
        self._rng = np.random.default_rng(config.seed)

    def choose(self, run: RunState, *, referee_calls: int) -> Choices:
        """Rate if cold, detour if triggered, then pick a path and a tool."""
        with self._lock:
            view = PolicyView.take(self._learner, self._paths, run.context)
        scores: dict[str, int] = {}
        suggestion = None
        if view.draws_cold:
            run.warm = False
            found = self._rate(run, view, later_calls=2 + referee_calls)
            if found is not None:
                scores, suggestion = found.scores, found
        else:
            why = "the policies chose warm arms: nothing to explore"
            run.trace.add("rating", "skipped", run.trace.start(), outputs={"why": why})
        trigger = self._detour_trigger(run, view)
        fresh = self._detour(run, view, trigger, later_calls=1 + referee_calls) if trigger else []
        with self._lock:
            for path in fresh:
                self._paths[path.arm_id] = path
                self._learner.add_arm("path", path.arm_id)
            path_pick = self._pick_path(run, view, scores, fresh)
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
        return Choices(listed, path_pick, tool_pick, argument, fresh, trigger if fresh else None)

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
                view.prob_best, view.recent, rules, any_cold=bool(view.cold_paths)
            )
            if trigger is not None:
                return trigger
            why = "paths are neither failing repeatedly nor all unconvincing"
        run.trace.add("detour", "skipped", started, outputs={"why": why})
        return None

    def _rate(self, run: RunState, view: PolicyView, later_calls: int) -> rating.Rating | None:
        started = run.trace.start()
        inputs = {"cold_paths": view.cold_paths, "cold_tools": view.cold_tools}
        if not run.can_afford_optional():
            run.trace.budget_stop("rating", started, "no call left for rating besides the answer")
            return None
        tools_described = {NO_TOOL: "answer without a tool"}
        if self._toolbox is not None:
            tools_described.update(self._toolbox.describe())
        try:
            found = rating.rate_paths(
                run.meter,
                run.query,
                view.live,
                tools_described,
                retries=run.retries(later_calls),
                timeout_s=self._config.llm_timeout_s,
            )
        except LLM_FAULTS as error:
            run.trace.fault("rating", error, started, inputs=inputs)
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
        run.warm = False
        if not run.can_afford_optional():
            run.trace.budget_stop("detour", started, f"triggered ({trigger}) but no call left")
            return []
        try:
            fresh = detour.generate_paths(
                run.meter,
                run.query,
                view.live,
                self._config.detour,
                known_ids=set(self._paths),
                retries=run.retries(later_calls),
                timeout_s=self._config.llm_timeout_s,
            )
        except LLM_FAULTS as error:
            run.trace.fault("detour", error, started, inputs={"trigger": trigger})
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
                view.cold_paths,
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
                "cold": view.cold_paths,
                "prob_best": view.prob_best,
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
            inputs={"cold": view.cold_tools},
            outputs={"arm": pick.arm, "propensity": pick.propensity},
        )
        return pick
