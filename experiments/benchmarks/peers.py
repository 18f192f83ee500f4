"""The policies that ThinkPath's are measured against: plain NumPy and a naive chooser.

Every class here speaks the benchmark's `BanditPolicy` contract, which is the contract of
`learning.make_policy`'s policies: ``select(context=None) -> arm`` and
``update(arm, reward, context=None)``. The MABWiser peers live in `mabwiser_peer`.
"""

from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from engine.errors import ConfigError

FloatArray = NDArray[np.float64]


class BanditPolicy(Protocol):
    """What the harness drives: pick an arm, then learn from its reward."""

    def select(self, context: FloatArray | None = None) -> str:
        """The arm to play now (given the context, for a contextual policy)."""
        ...

    def update(self, arm: str, reward: float, context: FloatArray | None = None) -> None:
        """Learn from the reward in [0, 1] that `arm` earned (under `context`)."""
        ...


class NumPyThompson:
    """Plain Beta-Bernoulli Thompson sampling in a few lines of NumPy: the latency reference.

    Posterior per arm: Beta(1 + successes, 1 + failures); play the arm with the largest draw.
    It is deliberately the obvious implementation, so that "x times the NumPy reference" means
    "x times what anyone would write in an afternoon".

    >>> policy = NumPyThompson(["a", "b"], seed=1)
    >>> policy.update("a", 1.0)
    >>> policy.select() in {"a", "b"}
    True
    """

    def __init__(self, arms: Sequence[str], seed: int) -> None:
        self._arms = list(arms)
        self._index = {arm: i for i, arm in enumerate(self._arms)}
        self._successes = np.ones(len(self._arms))
        self._failures = np.ones(len(self._arms))
        self._rng = np.random.default_rng(seed)

    # The context parameter is the contract's; this context-free reference ignores it.
    def select(self, context: FloatArray | None = None) -> str:  # noqa: ARG002
        """Play the arm whose posterior draw is largest (the context is ignored)."""
        return self._arms[int(np.argmax(self._rng.beta(self._successes, self._failures)))]

    def update(self, arm: str, reward: float, context: FloatArray | None = None) -> None:  # noqa: ARG002
        """Add the reward to the arm's successes and its complement to its failures."""
        i = self._index[arm]
        self._successes[i] += reward
        self._failures[i] += 1.0 - reward


class NumPyThompsonPerContext:
    """One `NumPyThompson` per distinct context vector: the tabular contextual reference.

    With one-hot contexts this is the natural strong baseline: each context is its own bandit.
    """

    def __init__(self, arms: Sequence[str], seed: int) -> None:
        self._arms = list(arms)
        self._seed_sequence = np.random.SeedSequence(seed)
        self._by_context: dict[bytes, NumPyThompson] = {}

    def _bandit_of(self, context: FloatArray | None) -> NumPyThompson:
        if context is None:
            raise ConfigError("NumPyThompsonPerContext needs a context on every call")
        key = np.ascontiguousarray(context, dtype=np.float64).tobytes()
        if key not in self._by_context:
            (child,) = self._seed_sequence.spawn(1)
            self._by_context[key] = NumPyThompson(self._arms, int(child.generate_state(1)[0]))
        return self._by_context[key]

    def select(self, context: FloatArray | None = None) -> str:
        """Thompson sampling within the bandit of this context."""
        return self._bandit_of(context).select()

    def update(self, arm: str, reward: float, context: FloatArray | None = None) -> None:
        """Update only the bandit of this context."""
        self._bandit_of(context).update(arm, reward)


class ContextBlind:
    """Runs a context-free policy on a contextual workload by withholding the context.

    ThinkPath's context-free policies refuse a context (a likely wiring mistake in production),
    so the benchmark states the choice to ignore it here, once, instead of in the harness.
    """

    def __init__(self, policy: BanditPolicy) -> None:
        self._policy = policy

    def select(self, context: FloatArray | None = None) -> str:  # noqa: ARG002 - withheld
        """The wrapped policy's choice, made without the context."""
        return self._policy.select()

    def update(self, arm: str, reward: float, context: FloatArray | None = None) -> None:  # noqa: ARG002
        """The wrapped policy's update, without the context."""
        self._policy.update(arm, reward)


PolicyBuilder = Callable[[str], BanditPolicy]
"""Builds one of our policies by registry name (arms, seed and context size already bound)."""


class VarianceChooser:
    """The naive baseline that `auto` must beat: choose an algorithm from success-rate variance.

    It plays every arm `pulls_per_arm` times in turn, computes the variance across arms of their
    success rates and, if that variance is at least `threshold` ("the arms differ: exploit"),
    hands over to `high_variance`, else ("the arms are alike: explore carefully") to
    `low_variance`; the warm-up history is replayed into the chosen policy. The flaw the issue
    names is built in on purpose: the variance measures how far apart the arms' rates are, not how
    sure their estimates are. After ten pulls the sampling noise of each rate (up to 0.25 / 10)
    alone is about as large as the threshold, so the choice is close to a coin toss whenever the
    arms are close.
    """

    def __init__(
        self,
        arms: Sequence[str],
        build: PolicyBuilder,
        *,
        low_variance: str,
        high_variance: str,
        pulls_per_arm: int = 10,
        threshold: float = 0.02,
    ) -> None:
        if pulls_per_arm < 1:
            raise ConfigError(f"pulls_per_arm must be at least 1, got {pulls_per_arm}")
        self._arms = list(arms)
        self._build = build
        self._names = (low_variance, high_variance)
        self._warmup = pulls_per_arm * len(self._arms)
        self._threshold = threshold
        self._history: list[tuple[str, float, FloatArray | None]] = []
        self._chosen: BanditPolicy | None = None
        self.chosen_name: str | None = None

    def select(self, context: FloatArray | None = None) -> str:
        """Round-robin during the warm-up, then the chosen policy's choice."""
        if self._chosen is None:
            return self._arms[len(self._history) % len(self._arms)]
        if context is None:
            return self._chosen.select()
        return self._chosen.select(context=context)

    def update(self, arm: str, reward: float, context: FloatArray | None = None) -> None:
        """Record the warm-up, choose once it is complete, then forward to the chosen policy."""
        if self._chosen is not None:
            _forward(self._chosen, arm, reward, context)
            return
        self._history.append((arm, reward, context))
        if len(self._history) == self._warmup:
            self._choose()

    def _choose(self) -> None:
        totals = dict.fromkeys(self._arms, 0.0)
        counts = dict.fromkeys(self._arms, 0)
        for arm, reward, _ in self._history:
            totals[arm] += reward
            counts[arm] += 1
        rates = np.array([totals[arm] / counts[arm] for arm in self._arms])
        low, high = self._names
        self.chosen_name = high if float(np.var(rates)) >= self._threshold else low
        self._chosen = self._build(self.chosen_name)
        for arm, reward, context in self._history:
            _forward(self._chosen, arm, reward, context)


def _forward(policy: BanditPolicy, arm: str, reward: float, context: FloatArray | None) -> None:
    # Context-free policies of ours take no context keyword at all, so only pass one when given.
    if context is None:
        policy.update(arm, reward)
    else:
        policy.update(arm, reward, context=context)
