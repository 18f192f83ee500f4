"""Figures for experiment runs: curves over time with their bands, and reference lines.

Built on `matplotlib.figure.Figure` with the Agg canvas, never `pyplot`: no global figure state,
no display needed, safe in a server thread. Each label (a policy's name) keeps one colour and one
line style in every figure (`style_for`), so "thompson" looks the same in the regret curve, the
comparison figure and the playground.
"""

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

__all__ = ["Band", "comparison_figure", "curves_figure", "style_for", "styles_for"]

# Ten distinct colours (matplotlib's tab10) times four line styles: 40 labels before any repeat.
_COLOURS = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
)  # fmt: skip
_LINE_STYLES = ("-", "--", "-.", ":")
_SLOTS = len(_COLOURS) * len(_LINE_STYLES)
# The registered policies get fixed, distinct slots (in this order); other labels hash into one.
_KNOWN = (
    "auto", "bayes_ucb", "contextual_bayes_ucb", "contextual_thompson", "discounted_thompson",
    "epsilon_greedy", "glr_thompson", "kl_ucb", "lints", "linucb", "sliding_window_ucb",
    "thompson", "ucb1", "random", "oracle", "uniform", "best_fixed",
)  # fmt: skip


def style_for(label: str) -> dict[str, Any]:
    """A colour and line style for `label`, the same in every figure and every process.

    >>> style_for("thompson") == style_for("thompson"), style_for("auto") != style_for("ucb1")
    (True, True)
    """
    return _style(_slot(label))


def styles_for(labels: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Styles for the labels of one figure: `style_for` each, moved on where two would clash.

    Registered policies keep their fixed slots. Other labels (peers such as "numpy-ts", arm ids)
    hash to a slot and then, in sorted order, move to the next free slot whose colour the figure
    does not use yet, so a few of them differ in colour, not only in dashes. The same set of
    labels gives the same styles in every figure (all the plots of one run share it).

    >>> styles = styles_for(["numpy-ts", "mabwiser:thompson", "thompson"])
    >>> len({(s["color"], s["linestyle"]) for s in styles.values()})
    3
    """
    taken: set[int] = set()
    slots: dict[str, int] = {}
    for label in sorted(set(labels), key=lambda item: (_base(item) not in _KNOWN, item)):
        slot = _slot(label)
        if slot in taken or _base(label) not in _KNOWN:
            # From its own slot on, the first free one, preferring a colour not yet in the figure.
            order = [(slot + step) % _SLOTS for step in range(_SLOTS)]
            free = [candidate for candidate in order if candidate not in taken] or order
            colours = {_COLOURS[t % 10] for t in taken}
            slot = next((c for c in free if _COLOURS[c % 10] not in colours), free[0])
        taken.add(slot)
        slots[label] = slot
    return {label: _style(slots[label]) for label in labels}


def _base(label: str) -> str:
    return label.split(" ", maxsplit=1)[0].split("[", maxsplit=1)[0]


def _slot(label: str) -> int:
    base = _base(label)
    if base in _KNOWN:
        return _KNOWN.index(base)
    # Other labels hash into the slots no registered policy uses.
    return len(_KNOWN) + zlib.crc32(base.encode()) % (_SLOTS - len(_KNOWN))


def _style(slot: int) -> dict[str, Any]:
    return {"color": _COLOURS[slot % 10], "linestyle": _LINE_STYLES[(slot // 10) % 4]}


@dataclass(frozen=True)
class Band:
    """One curve: its mean over runs and a band around it (e.g. a 95% interval)."""

    label: str
    steps: np.ndarray
    mean: np.ndarray
    low: np.ndarray
    high: np.ndarray


def curves_figure(
    title: str,
    ylabel: str,
    bands: Sequence[Band],
    references: Mapping[str, tuple[np.ndarray, np.ndarray]] | None = None,
    band_label: str = "95% interval over runs",
) -> Figure:
    """Curves with shaded, labelled bands, and dotted reference lines (label -> (steps, values))."""
    figure = Figure(figsize=(9, 5), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    styles = styles_for([band.label for band in bands])
    for band in bands:
        style = styles[band.label]
        axes.plot(band.steps, band.mean, label=band.label, linewidth=1.6, **style)
        axes.fill_between(
            band.steps,
            band.low,
            band.high,
            color=style["color"],
            alpha=0.15,
            label=f"{band.label}: {band_label}",
        )
    for label, (steps, values) in (references or {}).items():
        axes.plot(steps, values, linestyle=":", color="black", linewidth=1.2, label=label)
    axes.set_title(title)
    axes.set_xlabel("step")
    axes.set_ylabel(ylabel)
    axes.grid(alpha=0.3)
    # Outside the axes: a legend inside covers the curves it names.
    axes.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    figure.tight_layout()
    return figure


def comparison_figure(
    title: str,
    metrics: Mapping[str, Mapping[str, float]],
    lower_is_better: Sequence[str] = (),
    toward_zero: Sequence[str] = (),
) -> Figure:
    """One panel per metric, one bar per policy: the parent run's summary in a single figure.

    `metrics` maps metric name -> {policy: value}. Each panel sorts its policies best first and
    says which way is better (`lower_is_better`, `toward_zero` for a bias, else higher), so the
    winner is the top bar of every panel.
    """
    names = list(metrics)
    figure = Figure(figsize=(4.2 * max(1, len(names)), 0.45 * _most_bars(metrics) + 1.8), dpi=100)
    FigureCanvasAgg(figure)
    axes_list = figure.subplots(1, max(1, len(names)), squeeze=False)[0]
    for axes, name in zip(axes_list, names, strict=False):
        lower, zero = name in lower_is_better, name in toward_zero
        ranked = sorted(
            metrics[name].items(),
            key=lambda item: abs(item[1]) if zero else item[1],
            reverse=not (lower or zero),
        )
        labels = [label for label, _ in ranked]
        positions = np.arange(len(ranked))
        styles = styles_for(labels)
        axes.barh(
            positions,
            [value for _, value in ranked],
            color=[styles[label]["color"] for label in labels],
        )
        axes.set_yticks(positions, labels)
        axes.invert_yaxis()  # best at the top
        better = "closer to 0" if zero else ("lower" if lower else "higher")
        axes.set_title(f"{name} ({better} is better)", fontsize="medium")
        axes.grid(axis="x", alpha=0.3)
    figure.suptitle(title)
    figure.tight_layout()
    return figure


def _most_bars(metrics: Mapping[str, Mapping[str, float]]) -> int:
    return max((len(values) for values in metrics.values()), default=1)
