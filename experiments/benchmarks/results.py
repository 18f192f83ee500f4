"""What a benchmark run measured, kept per workload and contender, seed by seed."""

import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engine.errors import ConfigError
from experiments.benchmarks.contenders import Contender
from experiments.benchmarks.harness import Summary, summarise
from experiments.benchmarks.latency import Latency


@dataclass
class RunSet:
    """One contender's runs on one workload: regret and seconds per seed, and choices made."""

    contender: Contender
    regret_by_seed: dict[int, float] = field(default_factory=dict)
    seconds_by_seed: dict[int, float] = field(default_factory=dict)
    choices: Counter[str] = field(default_factory=Counter)

    def add(self, seed: int, regret: float, seconds: float, choice: str | None) -> None:
        """Record one seed's run; a seed recorded twice is a harness bug, so it is refused."""
        if seed in self.regret_by_seed:
            raise ConfigError(f"seed {seed} of {self.contender.key} recorded twice")
        self.regret_by_seed[seed] = regret
        self.seconds_by_seed[seed] = seconds
        if choice is not None:
            self.choices[choice] += 1

    def summary(self) -> Summary:
        """Mean regret and its 95% interval over the seeds run."""
        return summarise(list(self.regret_by_seed.values()))

    def paired_difference(self, other: "RunSet") -> Summary:
        """This contender's regret minus `other`'s, seed by seed (same tables), summarised.

        Common random numbers make the per-seed difference far less noisy than comparing two
        independent means, so this is the test of "no worse beyond noise".
        """
        seeds = sorted(set(self.regret_by_seed) & set(other.regret_by_seed))
        return summarise([self.regret_by_seed[s] - other.regret_by_seed[s] for s in seeds])

    def mean_seconds(self) -> float:
        """Mean wall-clock seconds per run (informative only: the machine is shared)."""
        return float(np.mean(list(self.seconds_by_seed.values())))


@dataclass(frozen=True)
class LatencyRow:
    """One contender's latency at one arm count."""

    contender: Contender
    n_arms: int
    latency: Latency


@dataclass
class BenchmarkResults:
    """Everything one run of the benchmark measured, plus how it was asked for."""

    command: str
    seeds: int
    horizon: int
    workload_titles: dict[str, str]
    runs: dict[str, dict[str, RunSet]] = field(default_factory=dict)
    latency: list[LatencyRow] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def runset(self, workload: str, contender: Contender) -> RunSet:
        """The run set of `contender` on `workload`, created on first use."""
        by_key = self.runs.setdefault(workload, {})
        if contender.key not in by_key:
            by_key[contender.key] = RunSet(contender)
        return by_key[contender.key]

    def find(self, workload: str, key: str) -> RunSet | None:
        """The run set of contender `key` on `workload`, if it ran."""
        return self.runs.get(workload, {}).get(key)

    def find_latency(self, key: str, n_arms: int) -> Latency | None:
        """The latency of contender `key` at `n_arms`, if measured."""
        for row in self.latency:
            if row.contender.key == key and row.n_arms == n_arms:
                return row.latency
        return None


def save_runs(results: BenchmarkResults, path: Path) -> None:
    """Write every run set's per-seed regret, seconds and choices as JSON."""
    payload = {
        "horizon": results.horizon,
        "runs": [
            {
                "workload": workload,
                "contender": asdict(runset.contender),
                "regret_by_seed": runset.regret_by_seed,
                "seconds_by_seed": runset.seconds_by_seed,
                "choices": dict(runset.choices),
            }
            for workload, by_key in results.runs.items()
            for runset in by_key.values()
        ],
    }
    path.write_text(json.dumps(payload, indent=1))


def reuse_peer_runs(results: BenchmarkResults, path: Path) -> set[tuple[str, str]]:
    """Load the peer rows of an earlier run of the same horizon that cover every seed asked for.

    A peer's regret is a deterministic function of its seed and the environment's, so a peer row
    from an earlier run with the same seeds and horizon is the row this run would compute; ours
    are always rerun because their code changes. Returns the (workload, key) pairs loaded.
    """
    try:
        payload: dict[str, Any] = json.loads(path.read_text())
        horizon, runs = payload["horizon"], payload["runs"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ConfigError(f"cannot reuse runs from {path}: {error}") from error
    if horizon != results.horizon:
        raise ConfigError(f"{path} was run with T={horizon}, this run asks for T={results.horizon}")
    loaded: set[tuple[str, str]] = set()
    wanted = {str(seed) for seed in range(results.seeds)}
    for run in runs:
        contender = Contender(**run["contender"])
        if contender.family != "peer" or run["workload"] not in results.workload_titles:
            continue
        if not wanted <= set(run["regret_by_seed"]):
            continue
        runset = results.runset(run["workload"], contender)
        for seed in sorted(wanted, key=int):
            runset.add(int(seed), run["regret_by_seed"][seed], run["seconds_by_seed"][seed], None)
        loaded.add((run["workload"], contender.key))
    return loaded
