"""`auto`: the default policy, chosen from what is known about the problem when it is built.

The rule::

    no context                      -> glr_thompson          (Thompson sampling + GLR restarts)
    context_dim, discrete contexts  -> contextual_bayes_ucb  (Bayes-UCB per one-hot context)
    context_dim, discrete=0         -> lints                 (linear Thompson sampling)

Why this and not a rule on the data. The system ThinkPath learns from switched algorithm on
the variance of the arms' success rates. That number says how *alike* the arms are, not how
*sure* the estimates are: two arms at 0.50 and 0.45 after 10,000 pulls each look "alike" yet
are known precisely, and the same pair after 3 pulls looks just as alike while nothing is
known. Uncertainty is what should drive exploration, and it is already what the chosen
policies act on, per arm and per step: Thompson sampling explores in proportion to the
posterior probability that an arm is best, and Bayes-UCB to the width of its posterior. So a
meta-rule over noisy early statistics would only add a second, worse estimate of the same
thing. What the policies cannot know by themselves is the *structure* of the problem, and that
is what `auto` decides on:

- Without context, the risk that is known in advance is silent drift (an LLM endpoint changes
  under the same name). GLR Thompson sampling is plain Thompson sampling until its change
  detector fires, so in a stationary world it matches Thompson sampling, and after a change it
  restarts instead of trusting thousands of stale observations (see `docs/learning.md` for the
  figures).
- With one-hot contexts (the engine's task families), each context is its own small bandit;
  Bayes-UCB per context had lower and much steadier regret than Thompson sampling per context
  in our simulations. It is deterministic, so its logged propensities are one-hot: choose
  `contextual_thompson` explicitly when logs must support inverse-propensity evaluation.
- With continuous contexts, per-context tables cannot generalise; a linear model can.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from learning.base import Policy
from learning.errors import InvalidParameterError
from learning.params import Param

SUMMARY = "the default: glr_thompson, or contextual_bayes_ucb / lints with a context_dim"

_DISCRETE = Param(1, low=0, high=1, integer=True, doc="1: contexts are one-hot / discrete")


def choose_policy(context_dim: int | None, discrete: int = 1) -> str:
    """The name of the policy `auto` builds for this problem structure.

    >>> choose_policy(None), choose_policy(5), choose_policy(5, discrete=0)
    ('glr_thompson', 'contextual_bayes_ucb', 'lints')
    """
    if context_dim is None:
        return "glr_thompson"
    return "contextual_bayes_ucb" if discrete else "lints"


def make_auto(
    policies: dict[str, type[Policy]], arms: Sequence[str], seed: int | None, params: dict[str, Any]
) -> Policy:
    """Build the policy `choose_policy` names; other parameters go to it (and are checked there)."""
    settings = dict(params)
    discrete = _DISCRETE.check("discrete", settings.pop("discrete", 1))
    context_dim = settings.get("context_dim")
    if context_dim is None and discrete != 1:
        raise InvalidParameterError("parameter 'discrete' only applies with a context_dim")
    name = choose_policy(context_dim, int(discrete or 0))
    return policies[name](arms, seed=seed, **settings)
