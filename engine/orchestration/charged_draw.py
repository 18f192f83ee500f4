"""The path draw charged each path's measured seconds (`engine.domain.pricing.DrawPrice`).

Thompson sampling on the path policy's Beta posterior, each path's sampled accuracy less its
charge; the propensities are that draw's own probabilities (`learning.posterior`), so what is
logged stays exact for the rule that chose. `docs/engine.md`, "Cost at the draw", says why the
price is charged here rather than learned in the reward.
"""

from collections.abc import Mapping
from typing import Any

import numpy as np

from engine.stages import selection
from learning import PolicyLike
from learning.posterior import charged_beta_prob_best, charged_draw

__all__ = ["charged_path_draw", "draw_with_charges"]


def charged_path_draw(
    policy: PolicyLike,
    context: Any,
    charged: Mapping[str, float],
    rng: np.random.Generator,
) -> tuple[selection.Pick, dict[str, float], dict[str, float]] | None:
    """The draw with each arm of `policy` charged as `charged` says (an arm not there: 0), its
    propensities and the charges. None where no charge tells the arms apart (no price, no arm
    timed yet, or all alike) or the policy has no Beta posterior (`posterior`, which
    `pooled_thompson` has): then the policy draws as it would without a price."""
    posterior = getattr(policy, "posterior", None)
    charges = np.array([charged.get(arm, 0.0) for arm in policy.arms])
    if posterior is None or not charges.size or (charges == charges[0]).all():
        return None
    table = posterior(context)
    odds = charged_beta_prob_best(table[0], table[1], charges, rng)
    index = charged_draw(table[0], table[1], charges, rng)
    propensities = dict(zip(policy.arms, map(float, odds), strict=True))
    arm = policy.arms[index]
    pick = selection.Pick(arm, propensities[arm], "chose_by_posterior")
    return pick, propensities, dict(charged)


def draw_with_charges(
    policy: PolicyLike,
    context: Any,
    probabilities: Mapping[str, float],
    charged: Mapping[str, float],
    rng: np.random.Generator,
) -> tuple[selection.Pick, Mapping[str, float], dict[str, float]]:
    """The draw, its propensities and the charges laid on it: the charged draw where a charge
    tells the arms apart (`charged_path_draw`), else the policy's own draw by `probabilities`
    (its uncharged propensities) with no charge. The path, tool and model draws all take it."""
    drawn = charged_path_draw(policy, context, charged, rng)
    if drawn is None:
        return selection.choose_by_posterior(policy, context, probabilities), probabilities, {}
    return drawn
