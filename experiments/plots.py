"""Figures for experiment runs: curves over time with their bands, and reference lines.

Built on `matplotlib.figure.Figure` with the Agg canvas, never `pyplot`: no global figure state,
no display needed, safe in a server thread. Each label (a policy's name) keeps one colour and one
line style in every figure (`style_for`), so "thompson" looks the same in the regret curve, the
comparison figure and the playground.
"""

import colorsys
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import count
from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Patch

__all__ = [
    "BASELINE_STYLES",
    "PEER_STYLES",
    "POLICY_STYLES",
    "Band",
    "ValueRange",
    "colours_for",
    "comparison_figure",
    "curves_figure",
    "is_reference",
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
# Baselines are references, not contenders: greys, told apart by their dashes in a figure and by
# their shade in MLflow's charts, which draw every run solid.
BASELINE_STYLES: dict[str, tuple[str, str]] = {
    "random": ("#7f7f7f", "-"),
    "uniform": ("#a3a3a3", "--"),
    "best_fixed": ("#525252", "-."),
    "oracle": ("#c4c4c4", ":"),
}
# The benchmark's peers (`experiments.benchmarks.contenders.PEER_LABELS`), fixed like the policies
# so that a peer never takes a policy's colour: a test holds this table to the peer list.
PEER_STYLES: dict[str, tuple[str, str]] = {
    "numpy-ts": ("#6b6ecf", "--"),
    "numpy-ts-per-context": ("#9c9ede", ":"),
    "mabwiser:thompson": ("#637939", "-."),
    "mabwiser:ucb1": ("#ad494a", "-."),
    "mabwiser:linucb": ("#e7ba52", "-."),
    "mabwiser:lints": ("#31a354", ":"),
    "naive-variance": ("#843c39", ":"),
}
_FIXED = {**POLICY_STYLES, **PEER_STYLES, **BASELINE_STYLES}
# Other labels (template arms, the online evaluation's contenders, estimators) hash to a colour of
# this palette (matplotlib's tab10, then tab20's lighter halves) and a line style, and move on to
# a free colour where they would clash in one figure or one MLflow experiment run.
_COLOURS = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
    "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5",
    "#c49c94", "#f7b6d2", "#dbdb8d", "#9edae5", "#393b79",
)  # fmt: skip
_LINE_STYLES = ("-", "--", "-.", ":")


def style_for(label: str) -> dict[str, Any]:
    """A colour and line style for `label`, the same in every figure and every process.

    >>> style_for("thompson") == style_for("thompson"), style_for("auto") != style_for("ucb1")
    (True, True)
    >>> style_for("thompson [arithmetic]") == style_for("thompson")  # a policy in one context
    True
    """
    return styles_for([label])[label]


def styles_for(labels: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Styles for the labels of one figure: each its colour from `colours_for` and a line style.

    Registered policies, peers and baselines keep their fixed styles; other labels take the
    line style their name hashes to. The same set of labels gives the same styles in every
    figure (all the plots of one run share it).

    >>> styles = styles_for(["numpy-ts", "mabwiser:thompson", "thompson"])
    >>> len({s["color"] for s in styles.values()})
    3
    """
    colours = colours_for(labels)
    return {
        label: {
            "color": colours[label],
            "linestyle": _FIXED[_base(label)][1]
            if _base(label) in _FIXED
            else _LINE_STYLES[_hash(label) // len(_COLOURS) % len(_LINE_STYLES)],
        }
        for label in labels
    }


def colours_for(labels: Sequence[str]) -> dict[str, str]:
    """One colour per label, no two labels alike: the table's colour for a policy, peer or
    baseline, and for any other label its palette colour, moved on to the next one nobody in
    `labels` has yet. The same labels get the same colours in every figure and every MLflow run
    (`experiments.runner` tags each run with its colour, which MLflow's charts then use).

    >>> colours = colours_for(["glr_thompson", "epsilon_greedy", "analogy", "bare"])
    >>> colours["glr_thompson"], colours["epsilon_greedy"], len(set(colours.values()))
    ('#9467bd', '#7b4173', 4)
    """
    colours = {label: _FIXED[_base(label)][0] for label in labels if _base(label) in _FIXED}
    used = set(colours.values())
    for label in sorted({label for label in labels if label not in colours}):
        start = _hash(label)
        free = (_COLOURS[(start + step) % len(_COLOURS)] for step in range(len(_COLOURS)))
        colour = next((c for c in free if c not in used), None) or _spare(used)
        colours[label] = colour
        used.add(colour)
    return {label: colours[label] for label in labels}


def _spare(used: set[str]) -> str:
    """A colour none of `used` has, for a figure with more labels than the palette: hues a
    golden angle apart, so the first few of them are far apart too (`used` is finite, so one
    is always found)."""
    hues = (colorsys.hsv_to_rgb((index * 0.618033988749895) % 1.0, 0.65, 0.8) for index in count(1))
    spares = (f"#{round(255 * r):02x}{round(255 * g):02x}{round(255 * b):02x}" for r, g, b in hues)
    return next(colour for colour in spares if colour not in used)


def is_reference(label: str) -> bool:
    """Whether `label` is a baseline or a peer: a yardstick for the policies, not one of them.

    >>> is_reference("random"), is_reference("numpy-ts"), is_reference("thompson")
    (True, True, False)
    """
    return _base(label) in BASELINE_STYLES or _base(label) in PEER_STYLES


def _base(label: str) -> str:
    return label.split(" ", maxsplit=1)[0].split("[", maxsplit=1)[0]


def _hash(label: str) -> int:
    return zlib.crc32(_base(label).encode()) % (len(_COLOURS) * len(_LINE_STYLES))


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

    def interval(self, low: float, high: float, step: int = 1) -> tuple[float, float]:
        """The interval [low, high] cut to the values the metric can take (at `step`).

        Why this is right, not cosmetic: a t or normal interval is symmetric about the mean and
        knows nothing of the metric's bounds, so with few seeds it reaches values no run can
        take (a regret interval of [-9.8, 242.7]). The true mean lies in the range, so the cut
        interval covers it exactly as often as the uncut one did.

        >>> ValueRange(0.0, None).interval(-9.8, 242.7)
        (0.0, 242.7)
        >>> ValueRange(0.0, 1.0, per_step=True).interval(-0.5, 4.5, step=4)
        (0.0, 4.0)
        """
        bottom, top = (float(end[0]) for end in self.bounds(np.array([step])))
        return float(np.clip(low, bottom, top)), float(np.clip(high, bottom, top))


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

        The band is a normal approximation, mean +- 1.96 standard errors, which with few runs
        and values near a bound (regret near 0 early on, accuracy near 1) spills past a value no
        run can take; it is cut as `ValueRange.interval` cuts an interval, and for that reason.

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
