"""What the arm book hands out: immutable views of the policies at one moment.

The pipeline reads these and never the policies themselves, so no lock is held during an LLM
call and nothing it holds changes under it.
"""

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from engine.domain.pricing import DrawPrice
from engine.domain.procedures import PROCEDURE_CALLS
from engine.domain.records import PathDefinition
from engine.orchestration.charged_draw import draw_with_charges
from engine.orchestration.learner import Learner
from engine.stages import selection

__all__ = [
    "ModelChoice",
    "PolicyView",
    "SeedChoice",
    "frozen",
    "probability_mass",
    "read_model",
    "read_view",
]


@dataclass(frozen=True)
class PolicyView:
    """What the policies say about one query, read at one moment; never changes afterwards."""

    live: tuple[PathDefinition, ...]
    cold_paths: tuple[str, ...]
    cold_tools: tuple[str, ...]
    prob_best: Mapping[str, float]  # rounded, for the record
    propensities: Mapping[str, float]  # rounded, for the record
    exact_propensities: Mapping[str, float]
    recent: tuple[float, ...]
    path_draw: selection.Pick  # the policies' own choices, drawn in this state
    tool_draw: selection.Pick
    cold_tool_mass: float  # the tool policy's probability of drawing a cold tool
    tool_probabilities: Mapping[str, float]  # exact, for a fallback after a tool refuses
    # what the path draw charged each timed path (`DrawPrice`); empty where it charged none
    path_charges: Mapping[str, float] = field(default_factory=dict)
    tool_charges: Mapping[str, float] = field(default_factory=dict)

    @property
    def live_detours(self) -> list[str]:
        return [p.arm_id for p in self.live if p.origin == "detour"]

    @property
    def cold_detours(self) -> list[str]:
        return [arm for arm in self.live_detours if arm in self.cold_paths]

    @property
    def cold_path_mass(self) -> float:
        """The path policy's probability of drawing a cold arm."""
        return probability_mass(self.exact_propensities, self.cold_paths)

    @property
    def draws_cold(self) -> bool:
        """Did either policy choose to explore a cold arm?"""
        return self.path_draw.arm in self.cold_paths or self.tool_draw.arm in self.cold_tools


@dataclass(frozen=True)
class SeedChoice:
    """The seed role's draw for one query: build a seed or not, and its probability of building
    one for this kind of query."""

    use: bool
    probability: float


@dataclass(frozen=True)
class ModelChoice:
    """The model role's draw for one query: the model, its propensity and why, and what the
    draw read (each model's P(best) for the kind, the seconds a decision of the kind is expected
    to take on it and the charge the draw price laid on them), for the trace and the card."""

    pick: selection.Pick
    prob_best: Mapping[str, float] = field(default_factory=dict)
    propensities: Mapping[str, float] = field(default_factory=dict)
    seconds: Mapping[str, float] = field(default_factory=dict)
    charges: Mapping[str, float] = field(default_factory=dict)
    cold: tuple[str, ...] = ()


def read_model(
    learner: Learner,
    context: Sequence[float],
    draw_price: DrawPrice,
    draw_rng: np.random.Generator,
    *,
    pinned: str | None = None,
) -> ModelChoice:
    """The model role read for this context once (`ArmBook.model_choice`, its lock held).

    As for paths, the posterior stays each model's accuracy on the kind, and the seconds a
    decision of the kind is expected to take on each model (its measured speed times the kind's
    work, `ModelSeconds`: not the mean of the paths it happened to run) are charged at the draw
    (`DrawPrice`): the large model is drawn where it may be better by more than its extra
    seconds cost, and a kind the small model answers as well ends up on the small one. A pinned
    model is the client's: propensity 1, reason "forced"; its outcomes teach the model role like
    any (off-policy evaluation weighs them by that 1).
    """
    policy = learner.policies["model"]
    arms = policy.arms
    if len(arms) == 1:  # one model: nothing to draw, nor to read (a decision's time is precious)
        return ModelChoice(
            pick=selection.Pick(arms[0], 1.0, "forced" if pinned else "chose_by_posterior"),
            prob_best=frozen({arms[0]: 1.0}),
            propensities=frozen({arms[0]: 1.0}),
        )
    policy_context = learner.policy_context("model", context)
    explained = policy.explain(policy_context)
    seconds = learner.model_seconds(context, arms)
    charges: dict[str, float] = {}
    if pinned is not None:
        pick = selection.Pick(pinned, 1.0, "forced")
        propensities: Mapping[str, float] = {pinned: 1.0}
    else:
        pick, propensities, charges = draw_with_charges(
            policy,
            policy_context,
            explained.probabilities,
            draw_price.charges(seconds) if draw_price.active else {},
            draw_rng,
        )
    return ModelChoice(
        pick=pick,
        prob_best=frozen({k: round(v, 4) for k, v in explained.prob_best.items()}),
        propensities=frozen({k: round(v, 4) for k, v in propensities.items()}),
        seconds=frozen({k: round(v, 3) for k, v in seconds.items()}),
        charges=frozen(charges),
        cold=tuple(selection.cold_arms(policy, policy_context)),
    )


def frozen(values: Mapping[str, float]) -> Mapping[str, float]:
    return MappingProxyType({key: float(value) for key, value in values.items()})


def probability_mass(probabilities: Mapping[str, float], arms: Iterable[str]) -> float:
    """The probability of drawing any of `arms`: a sum that rounding could push past 1 (a
    propensity of 1.0000000000000002 failed the store's validation), so capped at 1.

    >>> shares = [0.05383017413698619, 0.3395062870351673, 0.30599004231012344,
    ...           0.10218797540377206, 0.19848552111395115]  # normalised: their sum rounds up
    >>> math.fsum(shares), probability_mass(dict(zip("abcde", shares)), "abcde")
    (1.0000000000000002, 1.0)
    """
    return min(1.0, math.fsum(probabilities.get(arm, 0.0) for arm in arms))


def read_view(
    learner: Learner,
    paths: Mapping[str, PathDefinition],
    context: Sequence[float],
    draw_price: DrawPrice,
    draw_rng: np.random.Generator,
) -> PolicyView:
    """The path and tool policies read for this context once (`ArmBook.view`, its lock held).

    P(best) and the propensities come from one posterior computation per policy
    (`Policy.explain`), so a decision pays for it once. With a draw price, the path and tool
    draws and their propensities are those of the charged draw (`draw_with_charges`); P(best)
    stays the arms' accuracy.
    """
    path_policy, tool_policy = learner.policies["path"], learner.policies["tool"]
    path_context = learner.policy_context("path", context)
    tool_context = learner.policy_context("tool", context)
    path_explained = path_policy.explain(path_context)
    tool_explained = tool_policy.explain(tool_context)
    cold_paths = selection.cold_arms(path_policy, path_context)
    cold_tools = selection.cold_arms(tool_policy, tool_context)
    live = tuple(paths[arm] for arm in path_policy.arms if arm in paths)
    seconds = (
        DrawPrice.with_estimates(
            learner.path_seconds(context, path_policy.arms),
            {
                arm: PROCEDURE_CALLS[paths[arm].procedure]
                for arm in path_policy.arms
                if arm in paths
            },
        )
        if draw_price.active
        else {}
    )
    path_draw, propensities, charges = draw_with_charges(
        path_policy,
        path_context,
        path_explained.probabilities,
        draw_price.charges(seconds),
        draw_rng,
    )
    # A tool is charged the mean seconds of the kind's decisions that used it: local search puts
    # passages before the question, which on the big model took 10-16 s a decision against
    # 1-3 s without (docs/benchmarks.md, issue 38 (d)); an exact tool that answers costs none.
    tool_seconds = learner.tool_seconds(context, tool_policy.arms) if draw_price.active else {}
    tool_draw, tool_propensities, tool_charges = draw_with_charges(
        tool_policy,
        tool_context,
        tool_explained.probabilities,
        draw_price.charges(tool_seconds),
        draw_rng,
    )
    return PolicyView(
        live=live,
        cold_paths=tuple(cold_paths),
        cold_tools=tuple(cold_tools),
        prob_best=frozen({k: round(v, 4) for k, v in path_explained.prob_best.items()}),
        propensities=frozen({k: round(v, 4) for k, v in propensities.items()}),
        exact_propensities=frozen(propensities),
        recent=tuple(learner.recent_rewards(context)),
        path_draw=path_draw,
        tool_draw=tool_draw,
        cold_tool_mass=probability_mass(tool_propensities, cold_tools),
        tool_probabilities=frozen(tool_propensities),
        path_charges=frozen(charges),
        tool_charges=frozen(tool_charges),
    )
