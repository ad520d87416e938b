"""Decorators that declare how an event is aggregated into step, episode and epoch statistics.

They only attach declarations to the event method of a topic class; the statistics
aggregation reads them. Decorators apply bottom-up, so write them in reading order
epoch → episode → step from top to bottom::

    class InventoryEvents(ABC):
        @define_epoch_stats(np.mean, input_name="step_mean", output_name="step_mean")
        @define_epoch_stats(max, input_name="step_max", output_name="step_max")
        @define_episode_stats(np.mean, output_name="step_mean")
        @define_episode_stats(max, output_name="step_max")
        @define_step_stats(None)
        def pieces_in_inventory(self, value: int):
            '''Reports the count of pieces currently in the inventory.'''

Semantics:

* **Step**: the reducer receives the list of the step's event values. An event's value
  is its single attribute when it has exactly one attribute (after removing grouping
  attributes), else its attribute dict. ``None`` passes the value through (the single
  value when the event fired once in the step, else the list).
* **Episode**: the reducer receives the list of the episode's step statistics named
  ``input_name`` (None: the unnamed one).
* **Epoch**: the reducer receives the list of the epoch's episode statistics named
  ``input_name``. With ``cumulative=True`` the reducer sees every episode since the
  statistics were created instead of only the current epoch (e.g. ``total_step_count``).
* ``output_name`` names the produced statistic (None: unnamed); several definitions per
  level coexist when their output names differ.
* :func:`define_stats_grouping` computes all statistics separately per combination of
  the named attributes (e.g. ``substep_0/piece_idx``).
* :func:`define_plot` registers a figure function; drawing is maze-viz's job.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any, Optional, TypeVar

__all__ = [
    "LogStatsLevel",
    "StatsDefinition",
    "PlotDefinition",
    "define_step_stats",
    "define_episode_stats",
    "define_epoch_stats",
    "define_stats_grouping",
    "define_plot",
    "stats_definitions",
    "stats_grouping",
    "plot_definitions",
    "histogram",
]

EventMethod = TypeVar("EventMethod", bound=Callable[..., Any])

_STATS_ATTRIBUTE = "__maze_stats__"
_GROUPING_ATTRIBUTE = "__maze_stats_grouping__"
_PLOTS_ATTRIBUTE = "__maze_plots__"


class LogStatsLevel(Enum):
    """The aggregation levels of statistics."""

    STEP = 1
    EPISODE = 2
    EPOCH = 3


@dataclass(frozen=True)
class StatsDefinition:
    """One declared statistic of an event.

    Attributes:
        level: Aggregation level it is computed at.
        reducer: Function from a list of lower-level values to one value (None: pass through).
        input_name: Name of the lower-level statistic it reduces (None: the unnamed one).
        output_name: Name of the statistic it produces (None: unnamed).
        cumulative: Epoch level only: reduce over all episodes so far, not only this epoch.
    """

    level: LogStatsLevel
    reducer: Optional[Callable[[list], Any]]
    input_name: Optional[str] = None
    output_name: Optional[str] = None
    cumulative: bool = False


@dataclass(frozen=True)
class PlotDefinition:
    """A figure function registered for an event.

    Attributes:
        create_figure: Builds a matplotlib figure from the statistic's values.
        input_name: Epoch statistic to plot (None: the unnamed one).
    """

    create_figure: Callable[..., Any]
    input_name: Optional[str] = None


def _declare(method: EventMethod, definition: StatsDefinition) -> EventMethod:
    existing: list[StatsDefinition] = list(getattr(method, _STATS_ATTRIBUTE, []))
    for other in existing:
        if other.level == definition.level and other.output_name == definition.output_name:
            name = definition.output_name or "<unnamed>"
            raise ValueError(
                f"event {method.__qualname__} declares the {definition.level.name.lower()} statistic {name!r} twice; "
                "give each definition of a level its own output_name"
            )
    # Decorators run bottom-up; insert at the front so the list reads top to bottom.
    setattr(method, _STATS_ATTRIBUTE, [definition, *existing])
    return method


def define_step_stats(
    reducer: Optional[Callable[[list], Any]], input_name: Optional[str] = None, output_name: Optional[str] = None
) -> Callable[[EventMethod], EventMethod]:
    """Declares a step statistic: ``reducer`` over the step's event values (None: pass through)."""
    definition = StatsDefinition(LogStatsLevel.STEP, reducer, input_name, output_name)
    return lambda method: _declare(method, definition)


def define_episode_stats(
    reducer: Callable[[list], Any], input_name: Optional[str] = None, output_name: Optional[str] = None
) -> Callable[[EventMethod], EventMethod]:
    """Declares an episode statistic: ``reducer`` over the episode's step statistics."""
    definition = StatsDefinition(LogStatsLevel.EPISODE, reducer, input_name, output_name)
    return lambda method: _declare(method, definition)


def define_epoch_stats(
    reducer: Callable[[list], Any],
    input_name: Optional[str] = None,
    output_name: Optional[str] = None,
    cumulative: bool = False,
) -> Callable[[EventMethod], EventMethod]:
    """Declares an epoch statistic: ``reducer`` over the epoch's episode statistics."""
    definition = StatsDefinition(LogStatsLevel.EPOCH, reducer, input_name, output_name, cumulative)
    return lambda method: _declare(method, definition)


def define_stats_grouping(*attribute_names: str) -> Callable[[EventMethod], EventMethod]:
    """Computes the event's statistics separately per combination of these attribute values."""

    def decorate(method: EventMethod) -> EventMethod:
        setattr(method, _GROUPING_ATTRIBUTE, tuple(attribute_names))
        return method

    return decorate


def define_plot(
    create_figure: Callable[..., Any], input_name: Optional[str] = None
) -> Callable[[EventMethod], EventMethod]:
    """Registers a figure function for the event's epoch statistic ``input_name``."""

    def decorate(method: EventMethod) -> EventMethod:
        plots = [*getattr(method, _PLOTS_ATTRIBUTE, []), PlotDefinition(create_figure, input_name)]
        setattr(method, _PLOTS_ATTRIBUTE, plots)
        return method

    return decorate


def stats_definitions(method: Callable[..., Any]) -> list[StatsDefinition]:
    """The statistics declared on an event method, top to bottom as written."""
    return list(getattr(method, _STATS_ATTRIBUTE, []))


def stats_grouping(method: Callable[..., Any]) -> tuple[str, ...]:
    """The grouping attributes declared on an event method (empty: no grouping)."""
    return getattr(method, _GROUPING_ATTRIBUTE, ())


def plot_definitions(method: Callable[..., Any]) -> list[PlotDefinition]:
    """The figure functions declared on an event method."""
    return list(getattr(method, _PLOTS_ATTRIBUTE, []))


def histogram(values: list) -> list:
    """Reducer that keeps all values (flattened one level), for histograms and ``[len:N, μ:X]`` rows."""
    if not any(issubclass(kind, (list, tuple)) for kind in set(map(type, values))):
        return list(values)
    collected: list = []
    for value in values:
        if isinstance(value, (list, tuple)):
            collected.extend(value)
        else:
            collected.append(value)
    return collected
