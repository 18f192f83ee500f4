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
from matplotlib.patches import Patch

__all__ = [
    "BASELINE_STYLES",
    "POLICY_STYLES",
    "Band",
    "ValueRange",
    "comparison_figure",
    "curves_figure",
    "style_for",
    "styles_for",
]

# One colour and one line style per registered policy, fixed here and used by every figure (the
# experiment plots, the playground): no two policies share a colour, so a reader never has to
# tell two curves apart by their dashes alone. `auto`, the product's policy, is the black line.
# A test holds this table to the learning registry: a new policy needs its entry here.
POLICY_STYLES: dict[str, tuple[str, str]] = {
    "auto": ("#000000", "-"),
    "thompson": ("#1f77b4", "-"),
    "contextual_thompson": ("#17becf", "--"),
    "discounted_thompson": ("#393b79", "-."),
    "glr_thompson": ("#9467bd", "--"),
    "bayes_ucb": ("#ff7f0e", "-"),
    "contextual_bayes_ucb": ("#8c6d31", "--"),
    "ucb1": ("#d62728", "-"),
    "klucb": ("#e377c2", "-."),
    "sliding_window_ucb": ("#8c564b", ":"),
    "linucb": ("#bcbd22", "-"),
    "lints": ("#2ca02c", "--"),
    "epsilon_greedy": ("#7b4173", ":"),
    # the per-family policies with a prior pooled across families: their from-zero kin's hue,
    # darker, dotted
    "pooled_thompson": ("#0b3d66", ":"),
    "pooled_bayes_ucb": ("#a64d00", ":"),
}
# Baselines are references, not contenders: grey, told apart by their dashes.
BASELINE_STYLES: dict[str, tuple[str, str]] = {
    "random": ("#7f7f7f", "-"),
    "uniform": ("#7f7f7f", "--"),
    "best_fixed": ("#7f7f7f", "-."),
    "oracle": ("#7f7f7f", ":"),
}
_FIXED = {**POLICY_STYLES, **BASELINE_STYLES}
# Other labels (peers such as "numpy-ts", template arm ids) hash into a grid of ten colours
# (matplotlib's tab10) times four line styles, and move on where they would clash in one figure.
_COLOURS = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
)  # fmt: skip
_LINE_STYLES = ("-", "--", "-.", ":")
_SLOTS = len(_COLOURS) * len(_LINE_STYLES)


def style_for(label: str) -> dict[str, Any]:
    """A colour and line style for `label`, the same in every figure and every process.

    >>> style_for("thompson") == style_for("thompson"), style_for("auto") != style_for("ucb1")
    (True, True)
    >>> style_for("thompson [arithmetic]") == style_for("thompson")  # a policy in one context
    True
    """
    fixed = _FIXED.get(_base(label))
    if fixed is not None:
        return {"color": fixed[0], "linestyle": fixed[1]}
    return _style(_slot(label))


def styles_for(labels: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Styles for the labels of one figure: `style_for` each, moved on where two would clash.

    Registered policies and baselines keep their fixed styles. Other labels hash to a slot of
    the grid and then, in sorted order, move to the next free slot whose colour the figure does
    not use yet, so a few of them differ in colour, not only in dashes. The same set of labels
    gives the same styles in every figure (all the plots of one run share it).

    >>> styles = styles_for(["numpy-ts", "mabwiser:thompson", "thompson"])
    >>> len({(s["color"], s["linestyle"]) for s in styles.values()})
    3
    """
    fixed = {label: style_for(label) for label in labels if _base(label) in _FIXED}
    used = {(style["color"], style["linestyle"]) for style in fixed.values()}
    taken = {
        slot for slot in range(_SLOTS) if (_style(slot)["color"], _style(slot)["linestyle"]) in used
    }
    slots: dict[str, int] = {}
    for label in sorted(set(labels) - set(fixed)):
        slot = _slot(label)
        # From its own slot on, the first free one, preferring a colour not yet in the figure.
        order = [(slot + step) % _SLOTS for step in range(_SLOTS)]
        free = [candidate for candidate in order if candidate not in taken] or order
        colours = {style["color"] for style in fixed.values()} | {_COLOURS[t % 10] for t in taken}
        slot = next((c for c in free if _COLOURS[c % 10] not in colours), free[0])
        taken.add(slot)
        slots[label] = slot
    return {label: fixed.get(label) or _style(slots[label]) for label in labels}


def _base(label: str) -> str:
    return label.split(" ", maxsplit=1)[0].split("[", maxsplit=1)[0]


def _slot(label: str) -> int:
    return zlib.crc32(_base(label).encode()) % _SLOTS


def _style(slot: int) -> dict[str, Any]:
    return {"color": _COLOURS[slot % 10], "linestyle": _LINE_STYLES[(slot // 10) % 4]}


@dataclass(frozen=True)
class ValueRange:
    """The values a metric can take: [low, high], either end open (None).

    With `per_step`, the bounds are per step and grow with it: a cumulative sum of per-step
    values in [low, high] lies in [low * step, high * step] (cumulative reward of 0/1 rewards).

    >>> ValueRange(0.0, 1.0, per_step=True).bounds(np.array([1, 4]))
    (array([0., 0.]), array([1., 4.]))
    """

    low: float | None = None
    high: float | None = None
    per_step: bool = False

    def bounds(self, steps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        scale = steps.astype(float) if self.per_step else np.ones(steps.shape)
        low = -np.inf if self.low is None else self.low
        high = np.inf if self.high is None else self.high
        return low * scale, high * scale


@dataclass(frozen=True)
class Band:
    """One curve: its mean over runs and a band around it (e.g. a 95% interval)."""

    label: str
    steps: np.ndarray
    mean: np.ndarray
    low: np.ndarray
    high: np.ndarray

    def clipped(self, value_range: ValueRange | None) -> "Band":
        """The band inside the values the metric can take.

        Why clipping is right, not cosmetic: the band is a normal approximation, mean +- 1.96
        standard errors, which with few runs and values near a bound (regret near 0 early on,
        accuracy near 1) spills past a value no run can take. The true mean lies in the range,
        so the interval cut to the range covers it exactly as often as the uncut one did.

        >>> band = Band("a", np.array([1]), np.array([0.1]), np.array([-0.2]), np.array([0.4]))
        >>> band.clipped(ValueRange(0.0, None)).low.tolist()
        [0.0]
        """
        if value_range is None:
            return self
        low, high = value_range.bounds(self.steps)
        return Band(
            self.label,
            self.steps,
            np.clip(self.mean, low, high),
            np.clip(self.low, low, high),
            np.clip(self.high, low, high),
        )


# Up to this many curves share one legend column; more are laid out in two.
_LEGEND_ROWS = 12


def curves_figure(
    title: str,
    ylabel: str,
    bands: Sequence[Band],
    references: Mapping[str, tuple[np.ndarray, np.ndarray]] | None = None,
    *,
    band_label: str = "95% interval over runs",
    value_range: ValueRange | None = None,
) -> Figure:
    """Curves with shaded bands kept inside `value_range`, and dotted reference lines.

    The legend has one entry per curve (its colour and dash), one for all the shaded bands, and
    one per reference line (label -> (steps, values)): 12 contenders make 13 entries, not 24.
    """
    figure = Figure(figsize=(9, 5), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    styles = styles_for([band.label for band in bands])
    for band in (b.clipped(value_range) for b in bands):
        style = styles[band.label]
        axes.plot(band.steps, band.mean, label=band.label, linewidth=1.6, **style)
        axes.fill_between(band.steps, band.low, band.high, color=style["color"], alpha=0.15)
    handles, labels = axes.get_legend_handles_labels()
    if bands:
        handles.append(Patch(facecolor="#7f7f7f", alpha=0.3, label=f"shaded: {band_label}"))
        labels.append(f"shaded: {band_label}")
    for label, (steps, values) in (references or {}).items():
        (line,) = axes.plot(steps, values, linestyle=":", color="#555555", linewidth=1.2)
        handles.append(line)
        labels.append(label)
    axes.set_title(title)
    axes.set_xlabel("step")
    axes.set_ylabel(ylabel)
    axes.grid(alpha=0.3)
    # Outside the axes: a legend inside covers the curves it names.
    axes.legend(
        handles,
        labels,
        fontsize="small",
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        ncols=1 + (len(labels) > _LEGEND_ROWS),
    )
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
