"""Stage 5, selection: the policy chooses; when it chooses to explore a cold arm, the LLM's pick
among the cold arms leads.

The policy draws first. If its draw is a warm arm, that is the choice: the model never overrides
exploitation. If its draw is a cold arm, the policy has decided to explore, and the rating call's
best-rated cold arm (not filtered out, ties at random) is explored instead: the model's prior
knowledge decides *which* cold arm is tried, the policy's posterior decides *how often* cold arms
are tried. The policy learns from what the pick brings, through outcomes, like any other choice.

The logged propensity is exact for this rule given the ratings: a warm arm's is the policy's own
probability; the model's cold pick's is the policy's total probability of drawing any cold arm,
divided among tied picks. (Measured in a simulation, forcing every cold arm to be tried first
instead kept the engine exploring detour arms in every query family and halved its accuracy.)
"""

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from engine.domain.models import Reason
from learning import PolicyLike

NEUTRAL_RATING = 3  # an arm the rating call did not score is treated as middling


@dataclass(frozen=True)
class Pick:
    """A chosen arm, the probability that the logging rule chose it, and why."""

    arm: str
    propensity: float
    reason: Reason


def cold_arms(policy: PolicyLike, context: np.ndarray | None) -> list[str]:
    """The policy's arms that are still cold for this context, in arm order."""
    return policy.cold_arms(context=context)


def choose_cold(
    cold: Sequence[str],
    ratings: Mapping[str, int],
    rng: np.random.Generator,
    *,
    min_rating: int,
    cold_mass: float = 1.0,
) -> Pick | None:
    """The best-rated cold arm not filtered out (rating >= `min_rating`); None if there is none.

    `cold_mass` is the policy's probability of drawing any cold arm: the pick's propensity is
    that mass shared among the tied best-rated arms.

    >>> pick = choose_cold(["a", "b", "c"], {"a": 2, "b": 5, "c": 4}, np.random.default_rng(0),
    ...                    min_rating=2, cold_mass=0.6)
    >>> (pick.arm, pick.propensity, pick.reason)
    ('b', 0.6, 'cold_start')
    """
    eligible = [arm for arm in cold if ratings.get(arm, NEUTRAL_RATING) >= min_rating]
    if not eligible:
        return None
    top = max(ratings.get(arm, NEUTRAL_RATING) for arm in eligible)
    best = [arm for arm in eligible if ratings.get(arm, NEUTRAL_RATING) == top]
    arm = best[int(rng.integers(len(best)))]
    return Pick(arm, cold_mass / len(best), "cold_start")


def choose_by_posterior(
    policy: PolicyLike,
    context: np.ndarray | None,
    probabilities: Mapping[str, float] | None = None,
) -> Pick:
    """Let the policy choose; its propensity is taken from the state it chose in.

    `probabilities` may be passed when the caller computed them in this very state (they are a
    Monte Carlo estimate for Thompson sampling, so not free).
    """
    if probabilities is None:
        probabilities = policy.probabilities(context=context)
    arm = policy.select(context=context)
    return Pick(arm, float(probabilities.get(arm, 0.0)), "chose_by_posterior")


def within(
    pick: Pick,
    allowed: Collection[str],
    probabilities: Mapping[str, float],
    rng: np.random.Generator,
) -> Pick:
    """The policy's draw kept to the `allowed` arms: the draw if allowed, else an allowed arm
    drawn by the policy's probabilities renormalised over them (uniformly where they hold no
    mass); either way the propensity is the renormalised probability, exact for this rule.

    How the engine keeps exploration to arms that earned a place (`ArmBook.explorable`) and a
    kind's first decision to single-call paths: drawing from the policy's own distribution
    restricted to what is allowed leaves the relative odds of the allowed arms unchanged.

    >>> rng, odds = np.random.default_rng(0), {"a": 0.3, "b": 0.1, "c": 0.6}
    >>> redrawn = within(Pick("c", 0.6, "chose_by_posterior"), ["a", "b"], odds, rng)
    >>> redrawn.arm, round(redrawn.propensity, 6), redrawn.reason
    ('a', 0.75, 'cold_start')
    >>> kept = within(Pick("b", 0.1, "chose_by_posterior"), ["a", "b"], odds, rng)
    >>> kept.arm, round(kept.propensity, 6), kept.reason
    ('b', 0.25, 'chose_by_posterior')
    """
    arms = sorted(arm for arm in allowed if arm in probabilities)
    if not arms or len(arms) == len(probabilities):
        return pick
    weights = shares(probabilities, arms)
    if pick.arm in arms:
        return Pick(pick.arm, float(weights[arms.index(pick.arm)]), pick.reason)
    index = draw_index(weights, rng)
    return Pick(arms[index], float(weights[index]), "cold_start")


def shares(probabilities: Mapping[str, float], arms: Sequence[str]) -> np.ndarray:
    """The probabilities of `arms` renormalised over them, in their order (uniform where they
    hold no mass): what a redraw among them takes.

    >>> shares({"a": 0.375, "b": 0.125, "c": 0.5}, ["a", "b"]).tolist(), shares({"a": 0.0}, ["a"])
    ([0.75, 0.25], array([1.]))
    """
    weights = np.array([max(probabilities[arm], 0.0) for arm in arms], dtype=float)
    total = weights.sum()
    return weights / total if total > 0 else np.full(len(arms), 1.0 / len(arms))


def draw_index(weights: np.ndarray, rng: np.random.Generator) -> int:
    """An index drawn with probabilities `weights` (non-negative, summing to 1): what
    `rng.choice(len(weights), p=weights)` draws, on the same uniform number (numpy's inverse
    CDF), without its checks of `weights`, which were half the time of a redraw.

    >>> draw_index(np.array([0.0, 1.0, 0.0]), np.random.default_rng(0))
    1
    """
    cdf = weights.cumsum()
    cdf /= cdf[-1]
    return int(cdf.searchsorted(rng.random(), side="right"))
