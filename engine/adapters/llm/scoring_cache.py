"""Option likelihood's content-free baselines, kept per option set: the `OptionScorer` port.

Why: calibrated option likelihood (`engine.domain.likelihood`) scores the options twice, after
the question and after a content-free prompt. The second pass depends on the option texts only,
and the commonest sets come back question after question (Yes/No, True/False, the letters), so
it is kept in a bounded least-recently-used table and a set seen before costs no forward pass.

Only the prompts named in `prompts` are kept. A question's own pass repeats only when the same
question is asked again: keeping it would spend the table on rare hits, and would make a
repeated question's scoring look free in every trace that counts forward tokens. The key is the
prompt and the set of continuations, not their order, since a question's options come in any
order; a hit is returned in the order asked, marked `reused` (it evaluated no token).

>>> from engine.domain.likelihood import ContinuationScore, Likelihoods
>>> class Counting:
...     calls = 0
...     def score_continuations(self, prompt, continuations, timeout_s):
...         self.calls += 1
...         return Likelihoods(3, tuple(ContinuationScore(c, -1.0, 1) for c in continuations))
>>> inner = Counting()
>>> scorer = CachingOptionScorer(inner, frozenset({"Answer:"}))
>>> first = scorer.score_continuations("Answer:", [" Yes", " No"], 5.0)
>>> again = scorer.score_continuations("Answer:", [" No", " Yes"], 5.0)
>>> inner.calls, again.reused, [s.continuation for s in again.scores], again.forward_tokens
(1, True, [' No', ' Yes'], 0)
"""

import threading
from collections import OrderedDict
from collections.abc import Sequence

from engine.domain.likelihood import ContinuationScore, Likelihoods
from engine.domain.ports import OptionScorer

__all__ = ["BASELINES_KEPT", "CachingOptionScorer"]

BASELINES_KEPT = 512  # option sets; an entry is a few floats per option

_Key = tuple[str, frozenset[str]]


class CachingOptionScorer:
    """The `OptionScorer` port around `inner`, keeping the passes after `prompts` per option set."""

    def __init__(
        self, inner: OptionScorer, prompts: frozenset[str], size: int = BASELINES_KEPT
    ) -> None:
        if size < 1:
            raise ValueError(f"a cache of baselines keeps at least one option set, got {size}")
        self.inner = inner
        self.prompts = prompts
        self.size = size
        self._kept: OrderedDict[_Key, tuple[int, dict[str, ContinuationScore]]] = OrderedDict()
        self._lock = threading.Lock()  # one engine serves several requests at once

    def __repr__(self) -> str:
        return f"CachingOptionScorer({self.inner!r}, kept={len(self._kept)}/{self.size})"

    def score_continuations(
        self, prompt: str, continuations: Sequence[str], timeout_s: float
    ) -> Likelihoods:
        if prompt not in self.prompts:
            return self.inner.score_continuations(prompt, continuations, timeout_s)
        key = (prompt, frozenset(continuations))
        with self._lock:
            kept = self._kept.get(key)
            if kept is not None:
                self._kept.move_to_end(key)
        if kept is not None:
            prompt_tokens, by_text = kept
            scores = tuple(by_text[text] for text in continuations)
            return Likelihoods(prompt_tokens, scores, reused=True)
        # Scored outside the lock: a pass takes model time, and the model has its own lock.
        scored = self.inner.score_continuations(prompt, continuations, timeout_s)
        with self._lock:
            self._kept[key] = (scored.prompt_tokens, {s.continuation: s for s in scored.scores})
            self._kept.move_to_end(key)
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)
        return scored
