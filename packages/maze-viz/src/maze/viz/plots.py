"""Figure functions for statistics: action distributions, histograms and relative bar plots.

Every function takes the values of one statistic (e.g. all actions of one action key in
an epoch, as the histogram statistics of the monitoring wrapper's events keep them) and
the statistic's group values, and returns a matplotlib ``Figure`` that is not registered
with pyplot (safe on any backend, in threads, without a display). They fit
``define_plot`` (``create_figure(value, groups=...)``):

* :func:`create_categorical_plot` - counts per discrete value (discrete actions);
* :func:`create_relative_bar_plot` - share of ones per entry (multi-binary actions);
* :func:`create_violin_distribution` - one violin per entry of vector values (continuous actions);
* :func:`create_histogram` - a histogram of all values (flattened).

:func:`figure_to_png` turns a figure into PNG bytes (e.g. for TensorBoard images).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any, Optional

import numpy as np

__all__ = [
    "create_categorical_plot",
    "create_relative_bar_plot",
    "create_violin_distribution",
    "create_histogram",
    "figure_to_png",
]

_SIZE = (6.0, 3.5)
_MAX_BARS = 30
"""More categories than this are drawn as one filled step line."""


def _figure(title: str, groups: Optional[Sequence[Any]]) -> tuple[Any, Any]:
    from matplotlib.figure import Figure

    figure = Figure(figsize=_SIZE)
    figure.subplots_adjust(left=0.13, right=0.97, bottom=0.15, top=0.9)  # fixed margins: a layout engine costs more
    axes = figure.add_subplot()
    label = "/".join(str(group) for group in groups or ())
    axes.set_title(f"{title}: {label}" if label else title)
    return figure, axes


def _matrix(value: Sequence[Any]) -> np.ndarray:
    """The values as a ``[n, d]`` float array (scalars become ``d = 1``)."""
    if len(value) == 0:
        raise ValueError("no values to plot")
    try:
        matrix = np.asarray(value, dtype=np.float64)
    except ValueError:  # entries of different shapes
        matrix = None
    if matrix is not None:
        return matrix.reshape(len(value), -1)
    rows = [np.ravel(np.asarray(entry, dtype=np.float64)) for entry in value]
    widths = {row.size for row in rows}
    if len(widths) != 1:
        raise ValueError(f"values of different sizes {sorted(widths)} cannot be plotted per entry")
    return np.stack(rows)


def create_categorical_plot(value: Sequence[Any], groups: Optional[Sequence[Any]] = None, **kwargs: Any) -> Any:
    """Bar chart of how often each discrete value occurs (multi-discrete values: all entries pooled).

    Args:
        value: The discrete values (ints, or int arrays).
        groups: The statistic's group values (e.g. ``("substep_0", "action")``), shown in the title.
        **kwargs: Unused.
    """
    flat = _matrix(value).ravel().astype(np.int64)
    categories, counts = np.unique(flat, return_counts=True)
    figure, axes = _figure("action distribution", groups)
    if categories.size <= _MAX_BARS:
        axes.bar(categories, counts, width=0.8, color="tab:blue")
    else:  # one filled step line instead of a patch per category (many patches draw slowly)
        full = np.zeros(int(categories[-1] - categories[0]) + 1)
        full[categories - categories[0]] = counts
        axes.stairs(full, np.arange(full.size + 1) + categories[0] - 0.5, fill=True, color="tab:blue")
    axes.set_xlabel("value")
    axes.set_ylabel("count")
    if categories.size <= 20:
        axes.set_xticks(categories)
    return figure


def create_relative_bar_plot(value: Sequence[Any], groups: Optional[Sequence[Any]] = None, **kwargs: Any) -> Any:
    """Bar chart of the share of non-zero values per entry (multi-binary actions).

    Args:
        value: ``[d]`` binary vectors (or scalars).
        groups: The statistic's group values, shown in the title.
        **kwargs: Unused.
    """
    shares = (_matrix(value) != 0).mean(axis=0)
    figure, axes = _figure("share of ones", groups)
    axes.bar(np.arange(shares.size), shares, width=0.8, color="tab:green")
    axes.set_ylim(0, 1)
    axes.set_xlabel("entry")
    axes.set_ylabel("share")
    return figure


def create_violin_distribution(value: Sequence[Any], groups: Optional[Sequence[Any]] = None, **kwargs: Any) -> Any:
    """One violin per entry of the values (continuous actions).

    Args:
        value: ``[d]`` vectors (or scalars).
        groups: The statistic's group values, shown in the title.
        **kwargs: Unused.
    """
    matrix = _matrix(value)
    figure, axes = _figure("action distribution", groups)
    columns = [column[np.isfinite(column)] for column in matrix.T]
    positions = [index for index, column in enumerate(columns) if column.size and np.ptp(column) > 0]
    if positions:
        axes.violinplot([columns[index] for index in positions], positions=positions, showmeans=True)
    constant = [index for index in range(len(columns)) if index not in positions and columns[index].size]
    if constant:  # a violin needs spread; a constant entry is a point
        axes.plot(constant, [columns[index][0] for index in constant], "o", color="tab:orange")
    axes.set_xticks(range(len(columns)))
    axes.set_xlabel("entry")
    axes.set_ylabel("value")
    return figure


def create_histogram(value: Sequence[Any], groups: Optional[Sequence[Any]] = None, **kwargs: Any) -> Any:
    """Histogram of all values (flattened, non-finite ones dropped).

    Args:
        value: Numbers or arrays of numbers.
        groups: The statistic's group values, shown in the title.
        **kwargs: ``bins`` (default 30).
    """
    flat = np.concatenate([np.ravel(np.asarray(entry, dtype=np.float64)) for entry in value] or [np.zeros(0)])
    flat = flat[np.isfinite(flat)]
    if not flat.size:
        raise ValueError("no finite values to plot")
    figure, axes = _figure("histogram", groups)
    axes.hist(flat, bins=kwargs.get("bins", 30), color="tab:blue")
    axes.set_xlabel("value")
    axes.set_ylabel("count")
    return figure


def figure_to_png(figure: Any, dpi: int = 80) -> bytes:
    """The figure as PNG bytes."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()
