"""Tables of a replay: policies against the references, and which template wins on which family."""

from collections.abc import Sequence

import numpy as np

from experiments.replay import OutcomeMatrix
from experiments.replay_runs import ReplayResult

__all__ = ["replay_tables"]


def _policy_table(matrix: OutcomeMatrix, results: Sequence[ReplayResult]) -> str:
    baselines = matrix.baselines()
    lines = [
        f"## Replay over {len(matrix.strategies)} templates x {len(matrix.tasks)} tasks "
        f"({matrix.model})",
        "",
        "Accuracy per task. 'settled' is the mean over each run's second half; lift is in points "
        "over the best single template; oracle share is settled / per-family oracle.",
        "",
        "| contender | mean | settled | lift (points) | oracle share |",
        "| --- | ---: | ---: | ---: | ---: |",
        f"| uniform random (exact) | {baselines.uniform:.3f} | {baselines.uniform:.3f} | "
        f"{100 * (baselines.uniform - baselines.best_fixed):+.1f} | "
        f"{baselines.uniform / max(baselines.family_oracle, 1e-12):.3f} |",
        f"| best single: {baselines.best_fixed_strategy} (exact) | {baselines.best_fixed:.3f} | "
        f"{baselines.best_fixed:.3f} | +0.0 | "
        f"{baselines.best_fixed / max(baselines.family_oracle, 1e-12):.3f} |",
        f"| per-family oracle (exact) | {baselines.family_oracle:.3f} | "
        f"{baselines.family_oracle:.3f} | "
        f"{100 * (baselines.family_oracle - baselines.best_fixed):+.1f} | 1.000 |",
    ]
    for result in sorted(results, key=lambda r: -r.settled_reward):
        lines.append(
            f"| {result.label} | {result.mean_reward:.3f} | {result.settled_reward:.3f} | "
            f"{100 * (result.settled_reward - baselines.best_fixed):+.1f} | "
            f"{result.settled_reward / max(baselines.family_oracle, 1e-12):.3f} |"
        )
    lines += ["", f"Model faults (scored 0): {matrix.faults}."]
    return "\n".join(lines) + "\n"


def _family_table(matrix: OutcomeMatrix) -> str:
    families = list(dict.fromkeys(matrix.families))
    labels = np.array(matrix.families)
    accuracy = np.array(
        [
            [matrix.rewards[s, labels == family].mean() for family in families]
            for s in range(len(matrix.strategies))
        ]
    )
    lines = [
        "## Template accuracy by task family (best per family in bold)",
        "",
        "| template | " + " | ".join(families) + " | all |",
        "| --- | " + " | ".join("---:" for _ in families) + " | ---: |",
    ]
    best = accuracy.max(axis=0)
    for s, strategy in enumerate(matrix.strategies):
        cells = [
            f"**{value:.2f}**" if value == best[f] else f"{value:.2f}"
            for f, value in enumerate(accuracy[s])
        ]
        lines.append(
            f"| {strategy} | " + " | ".join(cells) + f" | {matrix.rewards[s].mean():.3f} |"
        )
    spread = accuracy.max(axis=0) - accuracy.min(axis=0)
    lines.append(
        "| best - worst (points) | " + " | ".join(f"{100 * v:.0f}" for v in spread) + " | |"
    )
    return "\n".join(lines) + "\n"


def replay_tables(matrix: OutcomeMatrix, results: Sequence[ReplayResult]) -> dict[str, str]:
    """The replay's Markdown tables, by artifact file name."""
    return {"results.md": _policy_table(matrix, results), "families.md": _family_table(matrix)}
