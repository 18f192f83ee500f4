"""Figures for experiment runs: curves over time with their bands, and reference lines.

Built on `matplotlib.figure.Figure` with the Agg canvas, never `pyplot`: no global figure state,
no display needed, safe in a server thread.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

__all__ = ["Band", "curves_figure"]


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
) -> Figure:
    """Curves with shaded bands, plus dashed reference lines (label -> (steps, values))."""
    figure = Figure(figsize=(8, 5), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    for band in bands:
        (line,) = axes.plot(band.steps, band.mean, label=band.label, linewidth=1.6)
        axes.fill_between(band.steps, band.low, band.high, color=line.get_color(), alpha=0.15)
    for label, (steps, values) in (references or {}).items():
        axes.plot(steps, values, linestyle="--", linewidth=1.2, label=label)
    axes.set_title(title)
    axes.set_xlabel("step")
    axes.set_ylabel(ylabel)
    axes.grid(alpha=0.3)
    axes.legend(fontsize="small", loc="best")
    figure.tight_layout()
    return figure
