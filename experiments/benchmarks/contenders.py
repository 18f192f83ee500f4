"""Who runs on which workload: ThinkPath's policies, the peers and the naive baseline, by key.

A contender is named by a short string key so that a run can be shipped to a worker process
(lambdas do not pickle) and rebuilt there: ``ours:<registry name>``, ``numpy-ts``,
``numpy-ts-per-context``, ``mabwiser:<policy>`` and ``naive-variance``.
"""

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from engine.errors import ConfigError
from experiments.benchmarks.mabwiser_peer import FAST_PATH_EXACT, MABWiserPolicy
from experiments.benchmarks.peers import (
    BanditPolicy,
    ContextBlind,
    NumPyThompson,
    NumPyThompsonPerContext,
    VarianceChooser,
)

AUTO = "auto"
# The naive chooser's candidates: (low variance -> "alike, explore", high -> "differ, exploit").
NAIVE_CANDIDATES = {False: ("thompson", "epsilon_greedy"), True: ("lints", "linucb")}

# Peer rows kept to what the table needs (MABWiser is slow): workload -> peers.
PEERS_BY_WORKLOAD = {
    "stationary": ["numpy-ts", "mabwiser:thompson", "mabwiser:ucb1"],
    "hard": ["numpy-ts"],
    "drift": ["numpy-ts", "mabwiser:thompson"],
    "contextual": ["numpy-ts-per-context", "mabwiser:linucb"],
}

PEER_LABELS = {
    "numpy-ts": "NumPy TS (reference)",
    "numpy-ts-per-context": "NumPy TS per context (reference)",
    "mabwiser:thompson": "MABWiser TS",
    "mabwiser:ucb1": "MABWiser UCB1",
    "mabwiser:linucb": "MABWiser LinUCB",
    "mabwiser:lints": "MABWiser LinTS",
    "naive-variance": "naive variance chooser (baseline)",
}


@dataclass(frozen=True)
class Contender:
    """One row of a workload's table: its key, its label and who made it."""

    key: str
    label: str
    family: str  # "ThinkPath", "peer" or "baseline"
    uses_context: bool = False


def _our_names() -> tuple[list[str], set[str]]:
    """Every registered policy, and the subset that needs a context."""
    from learning import available_policies  # noqa: PLC0415 - keeps import of this module cheap
    from learning.registry import reads_context  # noqa: PLC0415

    names = available_policies()
    return names, {name for name in names if reads_context(name)}


def lineup(workload_key: str, contextual: bool) -> list[Contender]:
    """The contenders of one workload: every fitting policy of ours, the naive chooser, peers."""
    names, contextual_names = _our_names()
    ours = [
        name
        for name in names
        if name in {AUTO, "thompson"} or (name in contextual_names) == contextual
    ]
    rows = []
    for name in ours:
        uses_context = contextual and name in contextual_names
        blind = contextual and not uses_context
        label = f"{name} (ignores context)" if blind else name
        rows.append(Contender(f"ours:{name}", label, "ThinkPath", uses_context=uses_context))
    if all(candidate in names for candidate in NAIVE_CANDIDATES[contextual]):
        rows.append(Contender("naive-variance", PEER_LABELS["naive-variance"], "baseline"))
    rows += [Contender(key, PEER_LABELS[key], "peer") for key in PEERS_BY_WORKLOAD[workload_key]]
    return rows


def _build_ours(name: str, arms: list[str], context_dim: int | None, seed: int) -> BanditPolicy:
    from learning import make_policy  # noqa: PLC0415
    from learning.registry import reads_context  # noqa: PLC0415

    if context_dim is None:
        policy: BanditPolicy = make_policy(name, arms=arms, seed=seed)
        return policy
    if reads_context(name):
        contextual: BanditPolicy = make_policy(name, arms=arms, seed=seed, context_dim=context_dim)
        return contextual
    return ContextBlind(make_policy(name, arms=arms, seed=seed))


def _build_naive(arms: list[str], context_dim: int | None, seed: int) -> BanditPolicy:
    low, high = NAIVE_CANDIDATES[context_dim is not None]

    def build(name: str) -> BanditPolicy:
        return _build_ours(name, arms, context_dim, seed)

    return VarianceChooser(arms, build, low_variance=low, high_variance=high)


def _build_mabwiser(
    name: str, arms: list[str], context_dim: int | None, seed: int, *, fast_path: bool = True
) -> BanditPolicy:
    return MABWiserPolicy(
        arms, name, seed, context_dim, fast_path=fast_path and name in FAST_PATH_EXACT
    )


_PEER_BUILDERS: dict[str, Callable[[list[str], int | None, int], BanditPolicy]] = {
    "numpy-ts": lambda arms, _dim, seed: NumPyThompson(arms, seed),
    "numpy-ts-per-context": lambda arms, _dim, seed: NumPyThompsonPerContext(arms, seed),
    "naive-variance": _build_naive,
    "mabwiser:thompson": partial(_build_mabwiser, "thompson"),
    "mabwiser:ucb1": partial(_build_mabwiser, "ucb1"),
    "mabwiser:linucb": partial(_build_mabwiser, "linucb"),
    "mabwiser:lints": partial(_build_mabwiser, "lints"),
}


def build_contender(
    key: str, arms: list[str], context_dim: int | None, seed: int, *, timing: bool = False
) -> BanditPolicy:
    """A fresh policy for `key` over `arms`, seeded with `seed`.

    With `timing`, a MABWiser peer goes through its public API (what a user pays per step);
    otherwise through its exact fast path (see `mabwiser_peer`).
    """
    if timing and key.startswith("mabwiser:"):
        return _build_mabwiser(
            key.removeprefix("mabwiser:"), arms, context_dim, seed, fast_path=False
        )
    if key.startswith("ours:"):
        return _build_ours(key.removeprefix("ours:"), arms, context_dim, seed)
    if key not in _PEER_BUILDERS:
        raise ConfigError(
            f"unknown contender {key!r}; known: ours:<policy>, {sorted(_PEER_BUILDERS)}"
        )
    return _PEER_BUILDERS[key](arms, context_dim, seed)
