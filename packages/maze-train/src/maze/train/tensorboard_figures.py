"""Figures of epoch statistics for TensorBoard's IMAGES tab.

:class:`~maze.train.tensorboard.LogStatsWriterTensorboard` (``figures=True``, the default;
``tensorboard_figures: false`` in ``conf_train`` turns it off) draws, for every statistic
it writes:

* the figures events declare with ``define_plot(create_figure, input_name)``: called as
  ``create_figure(value, groups=<group values>)`` for the epoch statistic named
  ``input_name``; it returns a matplotlib figure (or None: nothing to draw);
* the action distributions of the monitoring wrapper's action events
  (``MazeEnvMonitoringWrapper(action_logging=True)``): a bar chart of counts for
  discrete actions, the share of ones for multi-binary ones and violins for continuous
  ones, one image per sub-step and action key.

The image tag is the statistic's tag plus ``/plot``, e.g.
``train_DiscreteActionEvents/action/substep_0/action/plot``. matplotlib is imported
when the first figure is drawn.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from typing import Any, Optional

from maze.env.errors import ConfigurationError
from maze.env.log_stats.aggregator import event_method
from maze.env.log_stats.event_decorators import plot_definitions
from maze.env.log_stats.log_stats import LogStats, LogStatsKey

__all__ = ["BUILTIN_PLOTS", "epoch_figures", "figure_images", "png_size"]

BUILTIN_PLOTS: dict[tuple[str, str], str] = {
    ("DiscreteActionEvents", "action"): "create_categorical_plot",
    ("MultiBinaryActionEvents", "action"): "create_relative_bar_plot",
    ("ContinuousActionEvents", "action"): "create_violin_distribution",
}
"""Figure functions of :mod:`maze.viz.plots` drawn for the unnamed epoch statistic of built-in events."""

_DPI = 80


def _plot_functions(key: LogStatsKey) -> list[Callable[..., Any]]:
    """The figure functions that draw the statistic ``key``."""
    functions = []
    builtin = BUILTIN_PLOTS.get((key.topic, key.event))
    if builtin is not None and key.name is None:
        from maze.viz import plots

        functions.append(getattr(plots, builtin))
    method = event_method(key.topic, key.event)
    if method is not None:
        functions.extend(plot.create_figure for plot in plot_definitions(method) if plot.input_name == key.name)
    return functions


def epoch_figures(stats: LogStats) -> Iterator[tuple[LogStatsKey, Any]]:
    """Draws the figures of ``stats``: ``(statistic key, matplotlib figure)`` pairs.

    Raises:
        ConfigurationError: A figure function raised; the message names it and the event.
    """
    for key, value in stats.items():
        for create_figure in _plot_functions(key):
            try:
                figure = create_figure(value, groups=key.groups)
            except Exception as error:
                name = getattr(create_figure, "__qualname__", repr(create_figure))
                raise ConfigurationError(
                    f"the figure function {name} of {key.topic}.{key.event} raised {type(error).__name__}: {error}; "
                    "fix it, or switch TensorBoard figures off with tensorboard_figures=false"
                ) from error
            if figure is not None:
                yield key, figure


def png_size(png: bytes) -> tuple[int, int]:
    """``(width, height)`` of a PNG image (from its header)."""
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def figure_images(stats: LogStats, tag_of: Callable[[LogStatsKey], str]) -> list[Any]:
    """The figures of ``stats`` as TensorBoard image ``Summary.Value`` s (figures are closed afterwards).

    Args:
        stats: Epoch statistics.
        tag_of: The TensorBoard tag of a statistic; the image gets it plus ``/plot``.
    """
    values = []
    for key, figure in epoch_figures(stats):
        from maze.viz.plots import figure_to_png
        from tensorboard.compat.proto.summary_pb2 import Summary

        png = figure_to_png(figure, dpi=_DPI)
        _close(figure)
        width, height = png_size(png)
        image = Summary.Image(height=height, width=width, colorspace=4, encoded_image_string=png)
        values.append(Summary.Value(tag=f"{tag_of(key)}/plot", image=image))
    return values


def _close(figure: Any) -> None:
    """Releases a pyplot-managed figure (figures built with ``Figure()`` need nothing)."""
    manager: Optional[Any] = getattr(figure.canvas, "manager", None)
    if manager is not None:
        import matplotlib.pyplot as plt

        plt.close(figure)
