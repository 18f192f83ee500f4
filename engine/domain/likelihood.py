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

Calibration (`calibrated`). A small model has a prior over option texts of its own, whatever the
question: it finds " Yes" likelier than " No", a round number likelier than an odd one, and a
likelihood after the question mixes that prior with what the question says. The calibrated
score subtracts the prior: log P(option | question) - log P(option | a content-free prompt), the
question replaced by nothing ("Question: N/A\nAnswer:"). This is Holtzman et al. 2021,
"Surface Form Competition" (PMI_DC, the domain-conditional pointwise mutual information), and
the likelihood form of Zhao et al. 2021, "Calibrate Before Use" (contextual calibration, which
divides the label probabilities by those after a content-free input). An option is tokenized on
its own, so it has as many tokens after either prompt: the difference is already comparable
across lengths, and no per-token mean is taken (PMI_DC is a difference of sums). The baseline
depends on the option texts only, so a caller can keep it per option set.

Cost: the prompt is evaluated once for all options (one forward pass over its tokens, in
batches), then an option of k tokens takes k - 1 single-token passes: its first token's
probability comes from the prompt's pass. Nothing is generated. Calibration adds one pass after
the content-free prompt (a handful of tokens, then the same k - 1 per option), and none where
that option set's baseline is already kept.

>>> from dataclasses import replace
>>> paris, lyon = ContinuationScore(" Paris", -0.5, 1), ContinuationScore(" Lyon", -3.0, 2)
>>> scores = Likelihoods(5, (paris, lyon))
>>> best_option(scores)
0
>>> [round(value, 2) for value in normalised_scores(scores, "token_mean")]
[-0.5, -1.5]
>>> prior = Likelihoods(4, (replace(paris, logprob=-0.2), replace(lyon, logprob=-4.0)))
>>> best_option(scores, "calibrated", baseline=prior)  # Lyon 1.0 above its prior, Paris -0.3
1
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

Normalisation = Literal["token_mean", "char_mean", "sum", "calibrated"]
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
    reused: bool = False  # served from a cache of earlier passes: nothing was evaluated for it

    @property
    def forward_passes(self) -> int:
        """Single-token passes beyond the prompt's own: k - 1 for an option of k tokens."""
        return sum(score.tokens - 1 for score in self.scores)

    @property
    def forward_tokens(self) -> int:
        """The tokens this pass evaluated: the prompt's, then `forward_passes`; none if reused."""
        return 0 if self.reused else self.prompt_tokens + self.forward_passes


_NORMALISE: dict[str, Callable[[ContinuationScore], float]] = {
    "token_mean": lambda score: score.logprob / score.tokens,
    "char_mean": lambda score: score.logprob / max(1, len(score.continuation)),
    "sum": lambda score: score.logprob,
}


def normalised_scores(
    likelihoods: Likelihoods,
    how: Normalisation = "token_mean",
    *,
    baseline: Likelihoods | None = None,
) -> tuple[float, ...]:
    """Each option's score under the normalisation `how` (see the module docstring).

    `calibrated` needs `baseline`: the same continuations, in the same order, scored after a
    content-free prompt; the other normalisations ignore it.
    """
    if how == "calibrated":
        return _calibrated(likelihoods, baseline)
    try:
        normalise = _NORMALISE[how]
    except KeyError:
        raise ValueError(f"unknown normalisation {how!r}; use one of {NORMALISATIONS}") from None
    return tuple(normalise(score) for score in likelihoods.scores)


def _calibrated(likelihoods: Likelihoods, baseline: Likelihoods | None) -> tuple[float, ...]:
    if baseline is None:
        raise ValueError("the calibrated normalisation needs the options' content-free baseline")
    asked = [score.continuation for score in likelihoods.scores]
    if [score.continuation for score in baseline.scores] != asked:
        raise ValueError("a baseline scores the same continuations, in the same order")
    pairs = zip(likelihoods.scores, baseline.scores, strict=True)
    return tuple(score.logprob - prior.logprob for score, prior in pairs)


def best_option(
    likelihoods: Likelihoods,
    how: Normalisation = "token_mean",
    *,
    baseline: Likelihoods | None = None,
) -> int:
    """The index of the highest-scoring option; the first of equals, so the choice is stable."""
    values = normalised_scores(likelihoods, how, baseline=baseline)
    if not values:
        raise ValueError("no options were scored")
    return max(range(len(values)), key=lambda index: (values[index], -index))


def option_shares(
    likelihoods: Likelihoods,
    how: Normalisation = "token_mean",
    *,
    baseline: Likelihoods | None = None,
) -> tuple[float, ...]:
    """The normalised scores as shares that sum to 1 (a softmax), for showing beside a choice.

    Under `sum` they are the model's probabilities renormalised over the options; under
    `calibrated`, the probabilities divided by their content-free priors, renormalised (Zhao et
    al.'s calibrated distribution); under the means they rank the same way but are no
    probability of anything, only a relative weight.
    """
    values = normalised_scores(likelihoods, how, baseline=baseline)
    top = max(values)
    weights = [math.exp(value - top) for value in values]
    total = sum(weights)
    return tuple(weight / total for weight in weights)
