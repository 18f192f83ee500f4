"""The online evaluation's figures: accuracy along the stream, final-window accuracy with 95%
intervals over stream orders, cost per decision, and the referee's reliability against the checker.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from experiments.online import Step

__all__ = [
    "Summary",
    "agreement_reliability",
    "auc",
    "choices_table",
    "family_table",
    "lift_table",
    "referee_reliability",
    "summarise",
    "summary_table",
]


@dataclass(frozen=True)
class Summary:
    """One contender's figures over all stream orders."""

    label: str
    final_mean: float  # final-window accuracy, mean over orders
    final_low: float  # its 95% interval (Student t over orders)
    final_high: float
    overall: float  # accuracy over every decision
    decisions: int
    calls: float  # mean LLM calls per decision
    median_tokens: float  # completion tokens per decision
    median_seconds: float  # model seconds per decision
    seeded: float  # share of decisions whose answer saw a seed brief
    warm: int  # decisions that needed neither the rating nor a detour call
    warm_calls: float  # their mean LLM calls (NaN without warm decisions)
    warm_median_seconds: float  # their median model seconds


def window_start(length: int, final_window: float) -> int:
    """The first index of the final window (at least one decision)."""
    return min(length - 1, round(length * (1.0 - final_window)))


def final_windows(runs: Sequence[Sequence[Step]], final_window: float) -> list[float]:
    """Accuracy in the final window of each order."""
    finals = []
    for steps in runs:
        start = window_start(len(steps), final_window)
        finals.append(float(np.mean([step.reward for step in steps[start:]])))
    return finals


def t_interval(values: Sequence[float]) -> tuple[float, float]:
    """Mean and half-width of the 95% Student t interval (NaN half-width for one value)."""
    mean = float(np.mean(values))
    if len(values) < 2:
        return mean, float("nan")
    spread = float(np.std(values, ddof=1)) / np.sqrt(len(values))
    return mean, float(stats.t.ppf(0.975, len(values) - 1)) * spread


def summarise(label: str, runs: Sequence[Sequence[Step]], final_window: float) -> Summary:
    """Final-window accuracy with a t interval over orders, and per-decision costs."""
    mean, half = t_interval(final_windows(runs, final_window))
    every = [step for steps in runs for step in steps]
    warm = [step for step in every if step.warm]
    return Summary(
        label=label,
        final_mean=mean,
        # One order has no interval: NaN, never the [0, 1] that max/min would make of it.
        final_low=max(0.0, mean - half) if np.isfinite(half) else float("nan"),
        final_high=min(1.0, mean + half) if np.isfinite(half) else float("nan"),
        overall=float(np.mean([step.reward for step in every])),
        decisions=len(every),
        calls=float(np.mean([step.calls for step in every])),
        median_tokens=float(np.median([step.completion_tokens for step in every])),
        median_seconds=float(np.median([step.seconds for step in every])),
        seeded=float(np.mean([step.seeded for step in every])),
        warm=len(warm),
        warm_calls=float(np.mean([s.calls for s in warm])) if warm else float("nan"),
        warm_median_seconds=float(np.median([s.seconds for s in warm])) if warm else float("nan"),
    )


def _interval(low: float, high: float, sign: str = "") -> str:
    """A 95% interval in points, or what stands for none (a single order has no spread)."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return "[no interval: 1 order]"
    return f"[{low:{sign}.1f}, {high:{sign}.1f}]"


def summary_table(summaries: Sequence[Summary], final_window: float) -> str:
    """A Markdown table, one row per contender."""
    lines = [
        f"| contender | final-window accuracy (last {final_window:.0%}), 95% CI | overall | "
        "decisions | LLM calls / decision | median completion tokens | median model s | seeded | "
        "warm decisions: n, calls, median s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for s in summaries:
        lines.append(
            f"| {s.label} | {100 * s.final_mean:.1f}% "
            f"{_interval(100 * s.final_low, 100 * s.final_high)} | {100 * s.overall:.1f}% | "
            f"{s.decisions} | {s.calls:.2f} | "
            f"{s.median_tokens:.0f} | {s.median_seconds:.2f} | {100 * s.seeded:.0f}% | "
            f"{s.warm}, {s.warm_calls:.2f}, {s.warm_median_seconds:.2f} |"
        )
    return "\n".join(lines) + "\n"


def task_lifts(runs: Sequence[Sequence[Step]], reference: Sequence[Sequence[Step]]) -> list[float]:
    """Per task, the mean over orders of (contender's reward - reference's), in points.

    Every order holds every task once, so a task's difference is paired: the same question,
    asked of both. Tasks are the sampling unit of the whole-stream interval (with 3 orders, an
    interval over orders has 2 degrees of freedom and says little)."""
    by_task: dict[str, list[float]] = {}
    for steps, reference_steps in zip(runs, reference, strict=True):
        rewards = {step.task.task_id: step.reward for step in reference_steps}
        for step in steps:
            by_task.setdefault(step.task.task_id, []).append(
                100 * (step.reward - rewards[step.task.task_id])
            )
    return [float(np.mean(values)) for values in by_task.values()]


def lift_table(
    steps: Mapping[str, Sequence[Sequence[Step]]],
    engines: Sequence[str],
    references: Sequence[str],
    final_window: float,
) -> str:
    """Each engine's lift over each reference: in the final window paired by order (the same
    tasks in the same window, so the orders' difference in difficulty cancels; a 95% t interval
    over orders), and over the whole stream paired by task (a 95% t interval over tasks)."""
    lines = [
        f"| engine | over | lift in the final window (last {final_window:.0%}), points, 95% CI "
        "| per order | lift over the whole stream, points, 95% CI over tasks |",
        "|---|---|---|---|---|",
    ]
    for engine in engines:
        for reference in references:
            if reference == engine:
                continue
            lifts = [
                100 * (a - b)
                for a, b in zip(
                    final_windows(steps[engine], final_window),
                    final_windows(steps[reference], final_window),
                    strict=True,
                )
            ]
            mean, half = t_interval(lifts)
            shown = ", ".join(f"{lift:+.1f}" for lift in lifts)
            whole, whole_half = t_interval(task_lifts(steps[engine], steps[reference]))
            lines.append(
                f"| {engine} | {reference} | {mean:+.1f} "
                f"{_interval(mean - half, mean + half, '+')} | {shown} | {whole:+.1f} "
                f"{_interval(whole - whole_half, whole + whole_half, '+')} |"
            )
    return "\n".join(lines) + "\n"


def auc(scores: Sequence[float], labels: Sequence[bool]) -> float:
    """P(a right answer's score > a wrong one's), ties half: the Mann-Whitney AUC; NaN if one
    class is empty.

    >>> auc([0.9, 0.8, 0.1], [True, True, False])
    1.0
    >>> auc([0.5, 0.5], [True, False])
    0.5
    """
    right = [s for s, ok in zip(scores, labels, strict=True) if ok]
    wrong = [s for s, ok in zip(scores, labels, strict=True) if not ok]
    if not right or not wrong:
        return float("nan")
    wins = sum((r > w) + 0.5 * (r == w) for r in right for w in wrong)
    return float(wins / (len(right) * len(wrong)))


def referee_reliability(runs: Sequence[Sequence[Step]]) -> str:
    """Valid verdicts, and per family the referee's agreement and AUC against the checker."""
    every = [step for steps in runs for step in steps if step.referee_valid is not None]
    if not every:
        return "The referee was not asked.\n"
    valid = [step for step in every if step.referee_valid]
    lines = [
        f"Valid verdicts: {len(valid)} of {len(every)} ({100 * len(valid) / len(every):.1f}%).",
        "",
        "| family | verdicts | agreement (referee >= 0.5 vs checker) | AUC | mean score right "
        "| mean score wrong |",
        "|---|---|---|---|---|---|",
    ]
    families = sorted({step.task.family for step in valid})
    for family in [*families, "all"]:
        rows = [s for s in valid if family in ("all", s.task.family)]
        scores = [float(s.referee_score or 0.0) for s in rows]
        right = [s.reward >= 0.5 for s in rows]
        agree = np.mean([(sc >= 0.5) == ok for sc, ok in zip(scores, right, strict=True)])
        on_right = [sc for sc, ok in zip(scores, right, strict=True) if ok]
        on_wrong = [sc for sc, ok in zip(scores, right, strict=True) if not ok]
        lines.append(
            f"| {family} | {len(rows)} | {100 * agree:.0f}% | {auc(scores, right):.2f} | "
            f"{np.mean(on_right) if on_right else float('nan'):.2f} | "
            f"{np.mean(on_wrong) if on_wrong else float('nan'):.2f} |"
        )
    return "\n".join(lines) + "\n"


def agreement_reliability(steps: Mapping[str, Sequence[Sequence[Step]]]) -> str:
    """Per contender and family, how well the self-consistency samples' agreement (the majority
    share, a label-free signal) predicts the checker's verdict: its AUC and mean share.

    Only forced (`fixed:`) and engine contenders are read: `random` and `oracle` repeat the
    forced steps. An engine's rows are its self-consistency decisions, in every order.
    """
    lines = [
        "| contender | family | answers | AUC (majority share vs right) | mean share right "
        "| mean share wrong |",
        "|---|---|---|---|---|---|",
    ]
    for label in sorted(steps):
        if not label.startswith(("fixed:", "engine:")):
            continue
        voted = [s for order in steps[label] for s in order if s.agreement is not None]
        for family in [*sorted({s.task.family for s in voted}), "all"]:
            rows = [s for s in voted if family in ("all", s.task.family)]
            if not rows:
                continue
            shares = [float(s.agreement or 0.0) for s in rows]
            right = [s.reward >= 0.5 for s in rows]
            on_right = [sh for sh, ok in zip(shares, right, strict=True) if ok]
            on_wrong = [sh for sh, ok in zip(shares, right, strict=True) if not ok]
            lines.append(
                f"| {label} | {family} | {len(rows)} | {auc(shares, right):.2f} | "
                f"{np.mean(on_right) if on_right else float('nan'):.2f} | "
                f"{np.mean(on_wrong) if on_wrong else float('nan'):.2f} |"
            )
    if len(lines) == 2:
        return "No self-consistency answers: the agreement signal was not measured.\n"
    return "\n".join(lines) + "\n"


def wilson(right: int, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a share of right answers (it stays inside [0, 1] and is
    not empty at 0 or n right, unlike the normal approximation).

    >>> [round(x, 3) for x in wilson(0, 10)]
    [0.0, 0.278]
    """
    low, high = stats.binomtest(right, n).proportion_ci(method="wilson")
    return float(low), float(high)


def family_table(steps: Mapping[str, Sequence[Sequence[Step]]], labels: Sequence[str]) -> str:
    """Per family (and all), each contender's accuracy over all its decisions with a 95% Wilson
    interval. With one order the decisions are the tasks; with several, a task repeats once per
    order, so the interval is narrower than the tasks alone support (the orders' t intervals are
    in the summary)."""
    every = {label: [s for order in steps[label] for s in order] for label in labels}
    families = sorted({s.task.family for rows in every.values() for s in rows})
    lines = [
        "| family | decisions | " + " | ".join(f"{label}, 95% CI" for label in labels) + " |",
        "|---|---|" + "---|" * len(labels),
    ]
    for family in [*families, "all"]:
        cells = []
        for label in labels:
            rewards = [s.reward >= 0.5 for s in every[label] if family in ("all", s.task.family)]
            low, high = wilson(sum(rewards), len(rewards))
            cells.append(f"{100 * np.mean(rewards):.0f}% [{100 * low:.0f}, {100 * high:.0f}]")
        count = sum(family in ("all", s.task.family) for s in every[labels[0]])
        lines.append(f"| {family} | {count} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _of_family(runs: Sequence[Sequence[Step]], family: str) -> list[list[Step]]:
    """Each order's steps on `family`'s tasks ("all": every step)."""
    return [[s for s in order if family in ("all", s.task.family)] for order in runs]


def family_lift_table(
    steps: Mapping[str, Sequence[Sequence[Step]]], pairs: Sequence[tuple[str, str]]
) -> str:
    """Per family, each (contender, reference) pair's lift over the whole stream, paired by task
    (`task_lifts`), with a 95% t interval over the family's tasks; "below" marks a family where
    the contender is below the reference beyond noise (the interval's top under 0)."""
    families = sorted({s.task.family for order in steps[pairs[0][0]] for s in order})
    lines = [
        "| family | " + " | ".join(f"{a} over {b}, points, 95% CI" for a, b in pairs) + " |",
        "|---|" + "---|" * len(pairs),
    ]
    for family in [*families, "all"]:
        cells = []
        for contender, reference in pairs:
            lifts = task_lifts(
                _of_family(steps[contender], family), _of_family(steps[reference], family)
            )
            mean, half = t_interval(lifts)
            below = " below" if np.isfinite(half) and mean + half < 0 else ""
            cells.append(f"{mean:+.1f} {_interval(mean - half, mean + half, '+')}{below}")
        lines.append(f"| {family} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def choices_table(runs: Sequence[Sequence[Step]], final_window: float) -> str:
    """Per family: accuracy overall and in each order's final window, each tool's share (and its
    accuracy), the most chosen path."""
    every = [step for steps in runs for step in steps]
    names = sorted({step.tool for step in every})
    finals = [step for steps in runs for step in steps[window_start(len(steps), final_window) :]]
    lines = [
        f"| family | decisions | accuracy | final window (last {final_window:.0%}) | "
        + " | ".join(f"{name}: share (right)" for name in names)
        + " | top path |",
        "|---|---|---|---|" + "---|" * len(names) + "---|",
    ]
    for family in sorted({step.task.family for step in every}):
        rows = [s for s in every if s.task.family == family]
        paths = [s.arm for s in rows]
        top = max(set(paths), key=paths.count)
        cells = []
        for name in names:
            used = [s for s in rows if s.tool == name]
            right = f" ({100 * np.mean([s.reward for s in used]):.0f}%)" if used else ""
            cells.append(f"{100 * len(used) / len(rows):.0f}%{right}")
        late = [s.reward for s in finals if s.task.family == family]
        lines.append(
            f"| {family} | {len(rows)} | {100 * np.mean([s.reward for s in rows]):.0f}% | "
            # A family can miss the final window altogether (few tasks, one order): no figure.
            f"{f'{100 * np.mean(late):.0f}%' if late else '-'} | "
            + " | ".join(cells)
            + f" | {top} ({100 * paths.count(top) / len(rows):.0f}%) |"
        )
    return "\n".join(lines) + "\n"
