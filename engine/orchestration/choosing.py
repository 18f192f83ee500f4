"""Stages 3-7 together: read the policies, rate if cold, detour if triggered, pick path and tool.

The chooser reads one immutable `PolicyView` from the arm book, makes its LLM calls without any
lock held, and hands new detour arms back to the book: it holds no learning state of its own.
"""

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from pydantic import TypeAdapter

from engine.domain.config import EngineConfig
from engine.domain.models import Candidate
from engine.domain.option_arms import no_option_arm
from engine.domain.ports import ToolBox
from engine.domain.procedures import OPTION_PROCEDURES, PROCEDURE_CALLS
from engine.domain.records import NO_TOOL, Cost, PathDefinition
from engine.domain.trace import Steps, report, start
from engine.orchestration.arm_book import ArmBook, PolicyView
from engine.orchestration.run_state import RunState, run_stage
from engine.stages import detour, rating, selection, tools
from engine.stages.option_procedures import NO_SCORER
from learning.streams import stream_seed

CHOOSER_STREAM = 0  # scoring's audit draws use stream 1
# Every live path is listed in each decision: validated as one list, the candidates took half
# the time of one model built at a time (20 paths: 45 to 25 us).
_CANDIDATES = TypeAdapter(list[Candidate])
_FIRST_OF_KIND = "the first decision of a new kind makes no call besides its answer"


@dataclass(frozen=True)
class Choices:
    """What selection decided: candidates, the path and tool picks, the tool's input."""

    candidates: list[Candidate]
    path: selection.Pick
    path_definition: PathDefinition
    tool: selection.Pick
    tool_argument: str | None
    explored: bool  # a rating or detour call was made: the decision is off the warm path
    tool_probabilities: Mapping[str, float]  # the tool policy's, for a fallback
    cold_tools: tuple[str, ...] = ()  # the tools this kind has not learned yet, for a fallback


class Chooser:
    """Chooses a path and a tool for one decision from the shared learner."""

    def __init__(self, *, book: ArmBook, toolbox: ToolBox | None, config: EngineConfig) -> None:
        self._book = book
        self._toolbox = toolbox
        self._config = config
        # Its own stream of the engine's seed (`learning.streams`): never in step with another's.
        self._rng = np.random.default_rng(stream_seed(config.seed, CHOOSER_STREAM))
        self._ratings = rating.RatingCache(config.rating_cache_size)

    def choose(
        self,
        run: RunState,
        *,
        referee_calls: int,
        force_path: str | None = None,
        kind: str | None = None,
        first_of_kind: bool = False,
        offers_options: bool = False,
        can_score_options: bool = False,
    ) -> Steps[Choices]:
        """Rate if cold (where the rating is on), detour if triggered, then pick a path and a
        tool.

        A forced path (the caller named it) is taken with propensity 1: no detour is tried, and
        the rating call runs only when the tool policy explores. The rating is made once per
        `kind` and candidate set and reused (`rating.RatingCache`). The first decision of a new
        kind makes no call besides its answer: no rating, no detour, a single-call path.

        Where the question `offers_options` (read from it or given by the client), only the
        paths that answer with an option are candidates (option likelihood only where the model
        `can_score_options`): free text is not an option. Elsewhere they are not candidates.
        """
        view = self._book.view(run.context)
        excluded = _not_candidates(view, offers_options, can_score_options)
        answerable = tuple(p for p in view.live if p.arm_id not in excluded)
        # No live path can choose (retired elsewhere, or only option likelihood without scores):
        # the draw answers in free text, and the decision says so rather than pass it as a choice.
        unguarded = no_option_arm(excluded) if offers_options and not answerable else None
        scores: dict[str, int] = {}
        suggestion = None
        explores = view.draws_cold if force_path is None else view.tool_draw.arm in view.cold_tools
        explores = explores and self._config.rate_cold_paths and not first_of_kind
        rated_now = False
        if explores:
            found, rating_cost, rated_now = yield from self._rate(
                run, view, answerable, kind, later_calls=2 + referee_calls
            )
            run = run.after(rating_cost)  # the detour's budget counts the rating call
            if found is not None:
                scores, suggestion = found.scores, found
        elif self._config.rate_cold_paths:
            why = "the policies chose warm arms: nothing to explore"
            if first_of_kind:
                why = _FIRST_OF_KIND
            elif force_path is not None:
                why = "the path is forced and the tool policy chose a warm tool"
            yield report("rating", "skipped", start(), outputs={"why": why})
        trigger = yield from self._detour_trigger(view, force_path, first_of_kind, offers_options)
        fresh = []
        if trigger:
            fresh = yield from self._detour(run, view, trigger, later_calls=1 + referee_calls)
        if fresh:
            self._book.add_detours(fresh, trigger or "")
        if force_path is None:
            answering = frozenset(p.arm_id for p in answerable)
            allowed = self._book.explorable("path", run.context) & answering or answering
            if first_of_kind:
                allowed = _single_calls(view, allowed)
            path_pick = yield from self._pick_path(
                view, scores, fresh, allowed, excluded, degraded=unguarded
            )
        else:
            path_pick = selection.Pick(force_path, 1.0, "forced")
            yield report(
                "selection",
                "forced",
                start(),
                inputs={"policy_draw": view.path_draw.arm},
                outputs={"arm": force_path, "propensity": 1.0},
            )
        tool_pick = yield from self._pick_tool(run, view, suggestion, first_of_kind)
        min_rating = self._config.min_rating_to_explore
        listed = _CANDIDATES.validate_python(
            [
                {
                    "arm_id": path.arm_id,
                    "name": path.name,
                    "origin": "detour" if path.origin == "detour" else "template",
                    "rating": scores.get(path.arm_id),
                    "filtered": path.arm_id in scores and scores[path.arm_id] < min_rating,
                    "cold": path.arm_id in view.cold_paths or path in fresh,
                    "prob_best": view.prob_best.get(path.arm_id),
                    "propensity": view.propensities.get(path.arm_id),
                }
                for path in [*view.live, *fresh]
            ]
        )
        argument = (
            suggestion.tool_argument if suggestion and suggestion.tool == tool_pick.arm else None
        )
        chosen = next(p for p in [*view.live, *fresh] if p.arm_id == path_pick.arm)
        # Off the warm path only when a rating or detour call was made: a cached prior costs none.
        explored = rated_now or trigger is not None
        return Choices(
            listed,
            path_pick,
            chosen,
            tool_pick,
            argument,
            explored,
            view.tool_probabilities,
            view.cold_tools,
        )

    def fallback_tool(
        self, probabilities: Mapping[str, float], tried: Collection[str]
    ) -> tuple[str, float]:
        """The next tool after `tried` refused, drawn by the policy's probabilities among the
        tools not yet tried ("none" included), and its probability given that draw.

        With no mass left on the untried tools (a policy sure of the refused one), they are
        drawn uniformly, so a refusal always moves on.
        """
        remaining = [arm for arm in probabilities if arm not in tried]
        if not remaining:
            return NO_TOOL, 1.0
        weights = selection.shares(probabilities, remaining)
        index = selection.draw_index(weights, self._rng)
        return remaining[index], float(weights[index])

    def _detour_trigger(
        self, view: PolicyView, force_path: str | None, first_of_kind: bool, offers_options: bool
    ) -> Steps[str | None]:
        """The detour's trigger, or None with the reason it did not fire traced."""
        rules = self._config.detour
        started = start()
        if first_of_kind:
            why = _FIRST_OF_KIND
        elif offers_options:  # a detour writes a free-text path: it could not answer
            why = "the answer is one of the question's options: a new free-text path cannot give it"
        elif force_path is not None:
            why = f"the caller forced the path {force_path!r}"
        elif view.cold_detours:
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
        yield report("detour", "skipped", started, outputs={"why": why})
        return None

    def _rate(
        self,
        run: RunState,
        view: PolicyView,
        paths: Sequence[PathDefinition],
        kind: str | None,
        later_calls: int,
    ) -> Steps[tuple[rating.Rating | None, Cost, bool]]:
        """The rating of the `paths` that can answer this question (cached for the kind, else
        one call), its cost, and whether a call was made."""
        started = start()
        inputs = {"cold_paths": list(view.cold_paths), "cold_tools": list(view.cold_tools)}
        tools_described = {NO_TOOL: "answer without a tool"}
        if self._toolbox is not None:
            tools_described.update(self._toolbox.describe())
        namespace = self._config.namespace
        fingerprint = rating.candidate_fingerprint(list(paths), tools_described)
        cached = None if kind is None else self._ratings.get(namespace, kind, fingerprint)
        if cached is not None:
            why = f"rated once for the kind {kind!r} with these candidates: a prior, not a reward"
            outputs = {"scores": cached.scores, "tool": cached.tool, "why": why}
            yield report("rating", "cached", started, inputs=inputs, outputs=outputs)
            return cached, Cost(), False
        attempt = yield from run_stage(
            run,
            "rating",
            lambda llm: rating.rate_paths(
                llm,
                run.query,
                list(paths),
                tools_described,
                retries=run.retries(later_calls, warm=False),
                timeout_s=self._config.llm_timeout_s,
            ),
            started=started,
            optional="no call left for rating besides the answer",
            inputs=inputs,
        )
        found = attempt.value
        if found is None:
            return None, attempt.cost, True
        if kind is not None:
            self._ratings.put(namespace, kind, fingerprint, found)
        yield report(
            "rating",
            "done",
            started,
            cost=attempt.cost,
            inputs=inputs,
            outputs={
                "scores": found.scores,
                "tool": found.tool,
            },
        )
        return found, attempt.cost, True

    def _detour(
        self, run: RunState, view: PolicyView, trigger: str, later_calls: int
    ) -> Steps[list[PathDefinition]]:
        started = start()
        attempt = yield from run_stage(
            run,
            "detour",
            lambda llm: detour.generate_paths(
                llm,
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
        fresh = attempt.value
        if fresh is None:
            return []
        yield report(
            "detour",
            "detour_trigger",
            started,
            cost=attempt.cost,
            inputs={"trigger": trigger},
            outputs={"new_arms": [p.arm_id for p in fresh]},
        )
        return fresh

    def _pick_path(
        self,
        view: PolicyView,
        scores: Mapping[str, int],
        fresh: list[PathDefinition],
        allowed: frozenset[str],
        excluded: Mapping[str, str],
        *,
        degraded: str | None = None,
    ) -> Steps[selection.Pick]:
        started = start()
        pick = None
        if fresh:  # the model's fresh paths lead, as any cold arm's pick does
            arm = fresh[int(self._rng.integers(len(fresh)))].arm_id
            pick = selection.Pick(arm, 1.0 / len(fresh), "detour_trigger")
        elif scores and view.path_draw.arm in view.cold_paths:
            # Only among the allowed paths: an unrated arm counts as neutral, so a path that
            # cannot answer this question (an option procedure on an open one) once led here.
            pick = selection.choose_cold(
                [arm for arm in view.cold_paths if arm in allowed],
                scores,
                self._rng,
                min_rating=self._config.min_rating_to_explore,
                cold_mass=view.cold_path_mass,
            )
        why = "the model's rating of the cold paths led" if pick is not None else None
        if pick is None:
            pick = selection.within(view.path_draw, allowed, view.exact_propensities, self._rng)
            if pick.reason == "cold_start":
                why = "drawn again among the paths a new kind may try"
                if view.path_draw.arm in excluded:
                    why = "drawn again among the paths that can answer this question"
        yield report(
            "selection",
            pick.reason,
            started,
            inputs={
                "cold": list(view.cold_paths),
                "prob_best": dict(view.prob_best),
                "policy_draw": view.path_draw.arm,
                # each timed path's charge at the draw: the draw price times its mean seconds
                "charges": dict(view.path_charges),
            },
            outputs={
                "arm": pick.arm,
                "propensity": pick.propensity,
                "why": why,
                "not_candidates": dict(excluded),  # paths that cannot answer this question
            },
            degraded=degraded and f"selection: {degraded}",
        )
        return pick

    def _pick_tool(
        self,
        run: RunState,
        view: PolicyView,
        suggestion: rating.Rating | None,
        first_of_kind: bool,
    ) -> Steps[selection.Pick]:
        """The tool policy's draw. A new kind's first decision, or a cold draw, first asks the
        exact tools whether one reads the whole question on its own (`tools.reading_tool`);
        else the policy's draw, kept to the arms that earned a place while the kind is new."""
        started = start()
        explores = first_of_kind or view.tool_draw.arm in view.cold_tools
        reader, why = None, None
        if explores and self._toolbox is not None:
            offered = view.cold_tools if not first_of_kind else tuple(view.tool_probabilities)
            reader = tools.reading_tool(
                self._toolbox, run.query, offered, self._config.tool_timeout_s
            )
        if reader is not None:
            # the rule is deterministic given the question: the reading tool, every time
            pick = selection.Pick(
                reader, 1.0 if first_of_kind else view.cold_tool_mass, "cold_start"
            )
            why = "an exact tool read the whole question, so it leads while the kind is new to it"
        elif explores and suggestion is not None and suggestion.tool in view.cold_tools:
            pick = selection.Pick(suggestion.tool, view.cold_tool_mass, "cold_start")
            why = "the model's rating of the cold tools led"
        else:
            allowed = self._book.explorable("tool", run.context)
            pick = selection.within(view.tool_draw, allowed, view.tool_probabilities, self._rng)
            if pick.reason == "cold_start":
                why = "drawn again among the tools a new kind may try"
        yield report(
            "tool_selection",
            pick.reason,
            started,
            inputs={"cold": list(view.cold_tools)},
            outputs={
                "arm": pick.arm,
                "propensity": pick.propensity,
                "why": why,
                "charges": dict(view.tool_charges),
            },
        )
        return pick


def _not_candidates(view: PolicyView, offers_options: bool, can_score: bool) -> dict[str, str]:
    """The live paths that cannot answer this question, with why.

    Where the question offers options, every path that writes free text: on the development
    families every free-text contender, the bare model included, stayed below chance on
    questions with two or a few options (docs/benchmarks.md, issue 26), and a free-text answer
    may be none of the options. Elsewhere, the option procedures; and option likelihood where
    the model gives no likelihoods.
    """
    excluded = {}
    for path in view.live:
        chooses = path.procedure in OPTION_PROCEDURES
        if offers_options and not chooses:
            excluded[path.arm_id] = "writes free text, and the question's answer is an option"
        elif chooses and not offers_options:
            excluded[path.arm_id] = "answers with an option, and the question offers none"
        elif path.procedure == "option_likelihood" and not can_score:
            excluded[path.arm_id] = NO_SCORER
    return excluded


def _single_calls(view: PolicyView, allowed: frozenset[str]) -> frozenset[str]:
    """A new kind's first paths: those of one call (all allowed ones, where none is)."""
    single = frozenset(
        path.arm_id
        for path in view.live
        if path.arm_id in allowed and PROCEDURE_CALLS.get(path.procedure, 1) == 1
    )
    return single or allowed
