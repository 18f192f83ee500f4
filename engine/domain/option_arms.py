"""Which path arms answer a question with options, and why the last of them cannot be retired.

A question that offers options (read or given) is answered by a path whose procedure chooses
among them (`OPTION_PROCEDURES`); every free-text path is no candidate for it, since its answer
may be none of the options. So the engine keeps at least one live path that can choose on any
model: `constrained_choice` or `reason_choose`. Option likelihood alone does not count, since
it needs the model's own likelihoods and a hosted model gives none; with only it live, a
question with options on a hosted model would have no arm to answer it.

>>> from engine.domain.records import PathDefinition
>>> paths = {
...     "choose": PathDefinition("choose", "Choose", "", "{query}", procedure="constrained_choice"),
...     "plain": PathDefinition("plain", "Plain", "", "{query}"),
... }
>>> last_option_arm(paths, ["choose", "plain"], "choose")[:59]
"'choose' is the last live path that answers with an option "
>>> last_option_arm(paths, ["choose", "plain"], "plain") is None
True
"""

from collections.abc import Iterable, Mapping

from engine.domain.procedures import OPTION_PROCEDURES
from engine.domain.records import PathDefinition

__all__ = ["CHOOSES_ON_ANY_MODEL", "last_option_arm", "no_option_arm"]

# The option procedures that need nothing but a chat call (option likelihood needs scores).
CHOOSES_ON_ANY_MODEL = OPTION_PROCEDURES - {"option_likelihood"}


def last_option_arm(
    paths: Mapping[str, PathDefinition], live: Iterable[str], arm_id: str
) -> str | None:
    """Why retiring `arm_id` must be refused (it is the last live path that chooses among
    options on any model), or None where retiring it leaves such a path."""
    path = paths.get(arm_id)
    if path is None or path.procedure not in CHOOSES_ON_ANY_MODEL:
        return None
    others = [
        arm
        for arm in live
        if arm != arm_id and arm in paths and paths[arm].procedure in CHOOSES_ON_ANY_MODEL
    ]
    if others:
        return None
    return (
        f"{arm_id!r} is the last live path that answers with an option on any model "
        f"({' or '.join(sorted(CHOOSES_ON_ANY_MODEL))}); questions with options would have no "
        "arm to answer them: add another before retiring it"
    )


def no_option_arm(excluded: Mapping[str, str]) -> str:
    """Why a question with options is answered degraded: no live path could choose among them
    (each path that could not, and why, in `excluded`)."""
    why = "; ".join(f"{arm}: {reason}" for arm, reason in sorted(excluded.items()))
    return (
        "the question offers options, but no live path answers with one (each path: "
        f"{why or 'none live'}); the answer is free text and may be none of the options"
    )
