"""What each model would cost in seconds on a kind of query: what the model draw charges it
(`engine.domain.pricing.DrawPrice`, `engine.orchestration.views.read_model`).

A decision's seconds mix two things: how fast its model is, and how much work its path and the
question asked of it (a three-call path, a long worked answer). Charging a model the mean seconds
of its own decisions on the kind confounds the two: one slow path on the small model (11.7 s for
a long spelled-out answer) made it look dearer than the big one on short answers, and a kind the
small model answers right settled on the big one (docs/benchmarks.md, issue 38 (d)). So the
price is factored:

    expected seconds (model, kind) = speed (model, kind) * work (kind)

- **work**: a decision's tokens, each prompt token counted at `PROMPT_TOKEN_SHARE` of a generated
  one, averaged over the kind's decisions on *every* model (a decision that made no call does
  no work): what the kind asks, whichever model did it;
- **speed**: the model's seconds per unit of work on the kind, or over every kind where the kind
  has not timed it yet: what the model costs, whichever path it ran.

A decision without tokens (one stored before they were: every adapter reports them, litellm's
counting them where a provider does not) is not counted; a model timed nowhere, or that has
done no work anywhere yet (only tool answers), is charged nothing (a cold arm, explored).

Like `PathSeconds`, a decision counts once, when its first evidence for the model role arrives
(and is taken out if that evidence goes); replay and checkpoints carry it, so every replica
charges alike.
"""

from collections.abc import Hashable, Iterable, Mapping
from typing import Any

__all__ = ["PROMPT_TOKEN_SHARE", "ModelSeconds", "work_of"]

# A prompt token costs about an eighth of a generated one: llama.cpp on CPU reads a prompt in
# batches and generates one token at a time (SmolLM2-135M, one thread: ~375 prompt tokens a
# second against 47-50 generated; ../shared/OFFLINE.md), and hosted models price prompt tokens
# several times below completion ones.
PROMPT_TOKEN_SHARE = 0.125


def work_of(tokens: tuple[int, int]) -> float:
    """A decision's work from its (prompt, completion) tokens.

    >>> work_of((400, 10))
    60.0
    """
    prompt, completion = tokens
    return completion + PROMPT_TOKEN_SHARE * prompt


class ModelSeconds:
    """Sums of decisions' seconds and work, and their count, per (kind key, model) and per model."""

    def __init__(self) -> None:
        # [seconds, work, decisions]
        self._by_kind: dict[Hashable, dict[str, list[float]]] = {}
        self._overall: dict[str, list[float]] = {}

    def add(
        self,
        key: Hashable,
        model: str,
        seconds: float,
        tokens: tuple[int, int],
        sign: int = 1,
    ) -> None:
        """Count (sign 1) or uncount (sign -1) one decision."""
        work = work_of(tokens)
        for tally in (self._by_kind.setdefault(key, {}), self._overall):
            total = tally.setdefault(model, [0.0, 0.0, 0.0])
            total[0] += sign * seconds
            total[1] += sign * work
            total[2] += sign
            if total[2] <= 0:
                del tally[model]

    def forget(self, model: str) -> None:
        """Drop a model's seconds everywhere (an archived arm)."""
        self._overall.pop(model, None)
        for key in [key for key, tallies in self._by_kind.items() if model in tallies]:
            del self._by_kind[key][model]
            if not self._by_kind[key]:
                del self._by_kind[key]

    def expected(self, key: Hashable, models: Iterable[str]) -> dict[str, float]:
        """Each timed model's expected seconds for a decision of this kind (see the module).

        >>> timed = ModelSeconds()
        >>> timed.add("capitals", "small", 11.0, (0, 300))   # a long worked answer
        >>> timed.add("capitals", "big", 6.0, (0, 20))       # a short one
        >>> timed.expected("capitals", ["small", "big", "never_run"])
        {'small': 5.866667, 'big': 48.0}
        """
        own = self._by_kind.get(key, {})
        work = _mean_work(own) if own else None
        if work is None:
            work = _mean_work(self._overall)
        expected = {}
        for model in models:
            for tally in (own.get(model), self._overall.get(model)):
                price = _price(tally, work)
                if price is not None:
                    expected[model] = round(price, 6)
                    break
        return expected

    def state(self, key_out: Any) -> dict[str, Any]:
        """JSON-safe, each kind's key written by `key_out` (see `PathSeconds.state`)."""
        kinds = [[key_out(key), _copied(tallies)] for key, tallies in self._by_kind.items()]
        return {"kinds": kinds, "overall": _copied(self._overall)}

    @classmethod
    def restored(cls, state: Mapping[str, Any], key_in: Any) -> "ModelSeconds":
        """The tally that `state` wrote."""
        tally = cls()
        tally._by_kind = {key_in(key): _checked(tallies) for key, tallies in state["kinds"]}
        tally._overall = _checked(state["overall"])
        return tally


def _mean_work(tallies: Mapping[str, list[float]]) -> float | None:
    """The mean work of a decision over every model's decisions; None with none."""
    decisions = sum(total[2] for total in tallies.values())
    return sum(total[1] for total in tallies.values()) / decisions if decisions > 0 else None


def _price(total: list[float] | None, work: float | None) -> float | None:
    """Speed times work; None where the model has done no work here (only tool answers)."""
    if total is None or work is None or total[1] <= 0:
        return None
    return total[0] / total[1] * work


def _checked(tallies: Any) -> dict[str, list[float]]:
    if not isinstance(tallies, Mapping):
        raise ValueError(
            f"model seconds must map models to [seconds, work, count], got {tallies!r}"
        )
    return {str(model): [float(x) for x in triple[:3]] for model, triple in tallies.items()}


def _copied(tallies: Mapping[str, list[float]]) -> dict[str, list[float]]:
    return {model: list(triple) for model, triple in tallies.items()}
