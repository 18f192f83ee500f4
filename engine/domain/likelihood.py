"""Option likelihood: each option scored by the model's own log-probability after the question.

What an `OptionScorer` (`engine.domain.ports`) returns, and how scores of options of different
lengths are compared. The standard way to run a small model on multiple-choice tasks
(lm-evaluation-harness, `output_type: multiple_choice`): no text is generated, so the answer is
always one of the options.

Length normalisation. A raw sum of log-probabilities favours short options: every extra token
multiplies in another probability below one. lm-evaluation-harness reports the raw sum as `acc`
and, as `acc_norm`, the sum divided by the option's length in characters, chosen so that scores
stay comparable across models with different tokenizers. The default here is the mean per
token (`token_mean`), for two reasons:

- the options of one question are always scored by one model, so comparability across
  tokenizers buys nothing here;
- the commonest option sets are one token each (" Yes"/" No", " True"/" False", letters), and on
  those the per-token mean is the raw likelihood, while the per-character mean tilts the choice
  by the spelling's length: " Yes" has four characters and " No" three.

`sum` and `char_mean` (lm-evaluation-harness's `acc` and `acc_norm`) stay available, so that a
caller can learn which works per kind of question.

Cost: the prompt is evaluated once for all options (one forward pass over its tokens, in
batches), then an option of k tokens takes k - 1 single-token passes: its first token's
probability comes from the prompt's pass. Nothing is generated.

>>> paris, lyon = ContinuationScore(" Paris", -0.5, 1), ContinuationScore(" Lyon", -3.0, 2)
>>> scores = Likelihoods(5, (paris, lyon))
>>> best_option(scores)
0
>>> [round(value, 2) for value in normalised_scores(scores, "token_mean")]
[-0.5, -1.5]
"""

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, get_args

__all__ = [
    "NORMALISATIONS",
    "ContinuationScore",
    "Likelihoods",
    "Normalisation",
    "best_option",
    "normalised_scores",
    "option_shares",
]

Normalisation = Literal["token_mean", "char_mean", "sum"]
NORMALISATIONS: tuple[str, ...] = get_args(Normalisation)

# log-softmax is at most 0; float32 rounding can leave a hair above it.
_ROUNDING = 1e-4


@dataclass(frozen=True)
class ContinuationScore:
    """One continuation's total natural-log probability after the prompt, and its token count."""

    continuation: str
    logprob: float
    tokens: int

    def __post_init__(self) -> None:
        if self.tokens < 1:
            raise ValueError(f"a scored continuation has at least one token, got {self.tokens}")
        if math.isnan(self.logprob) or self.logprob > _ROUNDING:
            raise ValueError(f"a log-probability is at most 0, got {self.logprob}")


@dataclass(frozen=True)
class Likelihoods:
    """Each continuation's score after one prompt, in the order asked, with the prompt's size."""

    prompt_tokens: int
    scores: tuple[ContinuationScore, ...]

    @property
    def forward_passes(self) -> int:
        """Single-token passes beyond the prompt's own: k - 1 for an option of k tokens."""
        return sum(score.tokens - 1 for score in self.scores)


_NORMALISE: dict[str, Callable[[ContinuationScore], float]] = {
    "token_mean": lambda score: score.logprob / score.tokens,
    "char_mean": lambda score: score.logprob / max(1, len(score.continuation)),
    "sum": lambda score: score.logprob,
}


def normalised_scores(
    likelihoods: Likelihoods, how: Normalisation = "token_mean"
) -> tuple[float, ...]:
    """Each option's score under the normalisation `how` (see the module docstring)."""
    try:
        normalise = _NORMALISE[how]
    except KeyError:
        raise ValueError(f"unknown normalisation {how!r}; use one of {NORMALISATIONS}") from None
    return tuple(normalise(score) for score in likelihoods.scores)


def best_option(likelihoods: Likelihoods, how: Normalisation = "token_mean") -> int:
    """The index of the highest-scoring option; the first of equals, so the choice is stable."""
    values = normalised_scores(likelihoods, how)
    if not values:
        raise ValueError("no options were scored")
    return max(range(len(values)), key=lambda index: (values[index], -index))


def option_shares(likelihoods: Likelihoods, how: Normalisation = "token_mean") -> tuple[float, ...]:
    """The normalised scores as shares that sum to 1 (a softmax), for showing beside a choice.

    Under `sum` they are the model's probabilities renormalised over the options; under the
    means they rank the same way but are no probability of anything, only a relative weight.
    """
    values = normalised_scores(likelihoods, how)
    top = max(values)
    weights = [math.exp(value - top) for value in values]
    total = sum(weights)
    return tuple(weight / total for weight in weights)
