"""Render a benchmark run as Markdown: regret tables, latency table and the issue's targets."""

from collections.abc import Callable

from experiments.benchmarks.harness import Summary
from experiments.benchmarks.results import BenchmarkResults, RunSet

# The figures for rows we cannot run here (Vowpal Wabbit is not installed).
CITED_PEERS = {
    "drift": "Vowpal Wabbit bagging: about 360 (cited from the issue; not installed here)",
}


def _interval(summary: Summary) -> str:
    return f"{summary.mean:,.1f} ± {summary.half_width:,.1f}"


def _choices(runset: RunSet) -> str:
    return ", ".join(f"{name} x{count}" for name, count in sorted(runset.choices.items()))


def regret_tables(results: BenchmarkResults) -> list[str]:
    """One table per workload, rows sorted by mean regret."""
    lines: list[str] = []
    for workload, by_key in results.runs.items():
        lines += [
            f"### {results.workload_titles[workload]}",
            "",
            "| policy | from | regret (mean ± 95% CI) | s / run | notes |",
            "|---|---|---:|---:|---|",
        ]
        ordered = sorted(by_key.values(), key=lambda runset: runset.summary().mean)
        for runset in ordered:
            notes = f"chose: {_choices(runset)}" if runset.choices else ""
            lines.append(
                f"| {runset.contender.label} | {runset.contender.family} "
                f"| {_interval(runset.summary())} | {runset.mean_seconds():.2f} | {notes} |"
            )
        if workload in CITED_PEERS:
            lines.append(f"| {CITED_PEERS[workload]} | peer | — | — | not run |")
        lines.append("")
    return lines


def latency_table(results: BenchmarkResults) -> list[str]:
    """Median µs per step and the median paired ratio to the NumPy reference."""
    if not results.latency:
        return []
    lines = [
        "| policy | K | µs / step (median) | NumPy TS µs (same pairs) | ratio to NumPy TS |",
        "|---|---:|---:|---:|---:|",
    ]
    for row in results.latency:
        lat = row.latency
        lines.append(
            f"| {row.contender.label} | {row.n_arms} | {lat.contender_us:,.1f} "
            f"| {lat.reference_us:,.1f} | {lat.ratio:.2f} |"
        )
    return [*lines, ""]


Check = Callable[[BenchmarkResults], str | None]


def _verdict(met: bool) -> str:
    return "**met**" if met else "**not met**"


def _no_worse(results: BenchmarkResults, workload: str, key: str, reference: str) -> str | None:
    ours, ref = results.find(workload, key), results.find(workload, reference)
    if ours is None or ref is None:
        return None
    diff = ours.paired_difference(ref)
    return (
        f"{_verdict(diff.low <= 0.0)}: {workload}, {ours.contender.label} minus "
        f"{ref.contender.label} (paired by seed) = {_interval(diff)}"
    )


def stationary_checks(results: BenchmarkResults) -> list[str | None]:
    """Our Thompson sampling and `auto` no worse than the NumPy reference beyond noise."""
    return [
        _no_worse(results, "stationary", key, "numpy-ts") for key in ("ours:thompson", "ours:auto")
    ]


def drift_checks(results: BenchmarkResults, drift_key: str) -> list[str | None]:
    """The drift policy at or below 290 on drift, within 1.2x our TS on the stationary one."""
    checks: list[str | None] = []
    drift = results.find("drift", drift_key)
    if drift is not None:
        mean = drift.summary().mean
        checks.append(f"{_verdict(mean <= 290)}: drift, {drift.contender.label} = {mean:,.1f}")
    still, ts = results.find("stationary", drift_key), results.find("stationary", "ours:thompson")
    if still is not None and ts is not None:
        ratio = still.summary().mean / ts.summary().mean
        checks.append(
            f"{_verdict(ratio <= 1.2)}: stationary, {still.contender.label} / thompson = "
            f"{ratio:.2f} (target <= 1.2)"
        )
    return checks


def contextual_checks(results: BenchmarkResults) -> list[str | None]:
    """Each contextual policy of ours (and `auto`) at or below 137 regret."""
    checks: list[str | None] = []
    for runset in results.runs.get("contextual", {}).values():
        contender = runset.contender
        if contender.family != "ThinkPath" or not (
            contender.uses_context or contender.key == "ours:auto"
        ):
            continue
        s = runset.summary()
        worst = max(runset.regret_by_seed.values())
        checks.append(
            f"{_verdict(s.mean <= 137)}: contextual, {runset.contender.label} = {_interval(s)} "
            f"(worst seed {worst:,.1f})"
        )
    return checks


def latency_checks(results: BenchmarkResults) -> list[str | None]:
    """At most 0.7x the NumPy reference at K=10; at least 40x faster than MABWiser TS at K=100."""
    checks: list[str | None] = []
    for key in ("ours:thompson", "ours:auto"):
        small = results.find_latency(key, 10)
        if small is not None:
            checks.append(
                f"{_verdict(small.ratio <= 0.7)}: K=10, {key.removeprefix('ours:')} / NumPy TS "
                f"= {small.ratio:.2f} (target <= 0.7)"
            )
        large, peer = results.find_latency(key, 100), results.find_latency("mabwiser:thompson", 100)
        if large is not None and peer is not None:
            speedup = peer.ratio / large.ratio
            checks.append(
                f"{_verdict(speedup >= 40)}: K=100, MABWiser TS / {key.removeprefix('ours:')} "
                f"= {speedup:,.1f}x faster (target >= 40x)"
            )
    return checks


def auto_checks(results: BenchmarkResults) -> list[str | None]:
    """`auto` no worse than the naive variance chooser on every workload (paired by seed)."""
    return [_no_worse(results, w, "ours:auto", "naive-variance") for w in results.runs]


def render(results: BenchmarkResults, drift_key: str) -> str:
    """The whole report as Markdown."""
    checks = [
        *stationary_checks(results),
        *drift_checks(results, drift_key),
        *contextual_checks(results),
        *latency_checks(results),
        *auto_checks(results),
    ]
    lines = [
        f"Command: `{results.command}`",
        "",
        f"Seeds: {results.seeds}; horizon T = {results.horizon:,}; regret is pseudo-regret "
        "(sum over steps of the best mean minus the chosen arm's mean), mean ± 95% Student-t "
        "interval over seeds; every policy faces the same reward table per seed.",
        "",
        "## Targets",
        "",
        *[f"- {check}" for check in checks if check is not None],
        "",
        "## Regret",
        "",
        *regret_tables(results),
        "## Latency (one select + one update)",
        "",
        *latency_table(results),
        *[f"- {note}" for note in results.notes],
    ]
    return "\n".join(lines).rstrip() + "\n"
