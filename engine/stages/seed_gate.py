"""Whether to build a seed at all, learnt per kind of query from how the answers turned out.

Why: a brief helps some kinds of query (facts the passages hold) and hurts others (the embedded
model's briefs on arithmetic stated wrong results that the answer copied), and building one costs
a search and an LLM call. So the choice is learnt, not fixed: per query family, a Thompson
sampling policy over two arms, "seed" (the answer sees a brief) and "no_seed". An arm is credited
with what the answer actually saw: a seed that was tried but found weak, so that the answer got no
brief, teaches "no_seed". The reward is the decision's own score (the checker's, or the referee's
at its measured weight).

Limits, on purpose for now: the gate learns in the process that made the decision, from the score
that decision got; an outcome recorded later (a user's) or by another process does not reach it,
and a restart starts it afresh (at worst a few decisions of exploration per family).

>>> gate = SeedGate(seed=3)
>>> choice = gate.choose("arithmetic")
>>> choice.use in (True, False), 0.0 <= choice.probability <= 1.0
(True, True)
>>> for _ in range(30):
...     gate.learn("arithmetic", saw_brief=False, reward=1.0)
...     gate.learn("arithmetic", saw_brief=True, reward=0.0)
>>> sum(gate.choose("arithmetic").use for _ in range(50)) < 10
True
"""

import threading
from dataclasses import dataclass

from learning import PolicyLike, make_policy

SEED, NO_SEED = "seed", "no_seed"


@dataclass(frozen=True)
class SeedChoice:
    """Build a seed or not, and the gate's probability of building one for this family."""

    use: bool
    probability: float
    pulls: dict[str, float]  # what the gate has seen for this family: arm -> effective pulls


class SeedGate:
    """Per family, a two-armed Thompson sampler deciding whether to build the seed; thread-safe."""

    def __init__(self, seed: int | None = None) -> None:
        self._seed = seed
        self._policies: dict[str, PolicyLike] = {}
        self._pulls: dict[str, dict[str, float]] = {}
        self._lock = threading.Lock()

    def _policy(self, family: str) -> PolicyLike:
        if family not in self._policies:
            index = len(self._policies)
            seed = None if self._seed is None else self._seed + index
            self._policies[family] = make_policy("thompson", [SEED, NO_SEED], seed=seed)
            self._pulls[family] = {SEED: 0.0, NO_SEED: 0.0}
        return self._policies[family]

    def choose(self, family: str) -> SeedChoice:
        with self._lock:
            policy = self._policy(family)
            probability = float(policy.probabilities().get(SEED, 0.5))
            use = policy.select() == SEED
            return SeedChoice(use, round(probability, 4), dict(self._pulls[family]))

    def learn(self, family: str, *, saw_brief: bool, reward: float, weight: float = 1.0) -> None:
        with self._lock:
            arm = SEED if saw_brief else NO_SEED
            self._policy(family).update(arm, reward, weight=weight)
            self._pulls[family][arm] += weight
