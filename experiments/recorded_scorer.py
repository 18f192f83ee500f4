"""Option likelihood in the evaluations: the scorer's passes timed and counted per decision.

A scoring pass is no chat call, so the evaluations' request cache (`CachingLLM`) never sees it;
`RecordedScorer` keeps what each pass cost, so that a contender's step counts it as the engine's
own trace does (`engine.stages.option_procedures`: its forward tokens and seconds). A pass the
scorer served from its kept baselines (`reused`) evaluated nothing, and counts no call.
"""

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.domain.likelihood import Likelihoods
from engine.domain.ports import OptionScorer

__all__ = ["RecordedScorer", "ScoringPass"]


@dataclass(frozen=True)
class ScoringPass:
    """One scoring pass: its seconds, its forward tokens (prompt and options), its options, and
    whether it was served from kept baselines (no token evaluated)."""

    seconds: float
    forward_tokens: int
    options: int
    reused: bool = False


@dataclass
class RecordedScorer:
    """The `OptionScorer` port around `inner`, recording every pass in `passes`."""

    inner: OptionScorer
    passes: list[ScoringPass] = field(default_factory=list)

    def score_continuations(
        self, prompt: str, continuations: Sequence[str], timeout_s: float
    ) -> Likelihoods:
        started = time.perf_counter()
        scored = self.inner.score_continuations(prompt, continuations, timeout_s)
        seconds = time.perf_counter() - started
        self.passes.append(
            ScoringPass(seconds, scored.forward_tokens, len(continuations), scored.reused)
        )
        return scored
