"""Statistics of event logs as figures: per step within one episode, per episode across episodes.

* :class:`StepStatsRenderer` - how an event evolves over the steps of one episode (e.g.
  how many pieces were in the inventory at every step, or how often a cut was invalid);
* :class:`EventStatsRenderer` - a customizable statistic per episode over several
  episodes (e.g. the total number of replenished pieces per episode), split by an
  event attribute if wanted.

Both return matplotlib figures not registered with pyplot (see :mod:`maze.viz.plots`).
Events are named by their topic method, e.g. ``InventoryEvents.pieces_in_inventory``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Optional

import numpy as np
from maze.env.errors import ConfigurationError
from maze.env.log_events.episode_event_log import EpisodeEventLog
from maze.viz.event_logs import EpisodeInput, episode_event_log

__all__ = ["StepStatsRenderer", "EventStatsRenderer"]

Reducer = Callable[[list], float]


def _event_name(event: Callable) -> str:
    return getattr(event, "__qualname__", repr(event))


def _value_of(attributes: dict[str, Any], attribute: Optional[str], event: Callable) -> Any:
    if attribute is None:
        return attributes
    if attribute not in attributes:
        raise ConfigurationError(
            f"the events {_event_name(event)} have no attribute {attribute!r}; they have {sorted(attributes)}"
        )
    return attributes[attribute]


def _step_values(
    log: EpisodeEventLog, event: Callable, attribute: Optional[str], group_by: Optional[str]
) -> dict[Any, dict[int, list]]:
    """Per group value (None without grouping): per step index, the values of the step's events."""
    values: dict[Any, dict[int, list]] = {}
    for index, step_event_log in enumerate(log.step_event_logs):
        for record in step_event_log.query_events(event):
            group = _value_of(record.attributes, group_by, event) if group_by else None
            values.setdefault(group, {}).setdefault(index, []).append(_value_of(record.attributes, attribute, event))
    return values


class StepStatsRenderer:
    """Draws one event of an episode step by step.

    Args:
        episode: An episode event log, a recorded episode or the path of its trajectory file.
    """

    def __init__(self, episode: EpisodeInput) -> None:
        self.event_log = episode_event_log(episode)

    def render_stats(
        self,
        event: Callable,
        attribute: Optional[str] = None,
        reducer: Reducer = len,
        group_by: Optional[str] = None,
    ) -> Any:
        """A line per group: ``reducer`` of the event's values at every step of the episode.

        Steps without the event count as 0 for ``len`` and are left out otherwise.

        Args:
            event: The event method, e.g. ``InventoryEvents.pieces_in_inventory``.
            attribute: The attribute whose values are reduced (None: the attribute dicts,
                enough for counting with ``len``).
            reducer: Reduces the values of one step (default: count the events).
            group_by: An attribute to draw one line per value of.

        Raises:
            ConfigurationError: The event never fired in the episode, or lacks ``attribute``.
        """
        values = _step_values(self.event_log, event, attribute, group_by)
        if not values:
            raise ConfigurationError(
                f"{_event_name(event)} never fired in episode {self.event_log.episode_id!r}; pick an event of it"
            )
        from matplotlib.figure import Figure

        figure = Figure(figsize=(7.0, 3.5), layout="constrained")
        axes = figure.add_subplot()
        steps = len(self.event_log)
        for group, by_step in sorted(values.items(), key=lambda item: str(item[0])):
            if reducer is len:
                xs = np.arange(steps)
                ys = [len(by_step.get(step, ())) for step in xs]
            else:
                xs = np.array(sorted(by_step))
                ys = [reducer(by_step[step]) for step in xs]
            axes.plot(xs, ys, marker=".", label=f"{group_by}={group}" if group_by else None)
        axes.set_title(f"{_event_name(event)} per step", loc="left")
        axes.set_xlabel("step")
        axes.set_ylabel(attribute or "count")
        if group_by:
            axes.legend(fontsize="small")
        return figure


class EventStatsRenderer:
    """Draws a statistic of one event per episode, over several episodes.

    The statistic is computed like the statistics declared with the event decorators:
    ``step_reducer`` turns the values of one step into a step statistic, ``episode_reducer``
    turns the step statistics of an episode into the episode's value.

    Args:
        episodes: Episode event logs, recorded episodes or trajectory file paths.
    """

    def __init__(self, episodes: Sequence[EpisodeInput]) -> None:
        if not episodes:
            raise ConfigurationError("EventStatsRenderer needs at least one episode")
        self.event_logs = [episode_event_log(episode) for episode in episodes]

    def episode_stats(
        self,
        event: Callable,
        attribute: Optional[str] = None,
        step_reducer: Reducer = len,
        episode_reducer: Reducer = sum,
        group_by: Optional[str] = None,
    ) -> dict[Any, list[float]]:
        """Per group value (None without grouping): the statistic of every episode (NaN where the event never fired)."""
        per_episode = [_step_values(log, event, attribute, group_by) for log in self.event_logs]
        groups = sorted({group for values in per_episode for group in values}, key=str)
        return {
            group: [
                float(episode_reducer([step_reducer(run) for run in values[group].values()]))
                if group in values
                else float("nan")
                for values in per_episode
            ]
            for group in groups
        }

    def render_episode_stats(
        self,
        event: Callable,
        attribute: Optional[str] = None,
        step_reducer: Reducer = len,
        episode_reducer: Reducer = sum,
        group_by: Optional[str] = None,
    ) -> Any:
        """Grouped bars: the statistic of :meth:`episode_stats` per episode (x) and group (colour).

        Raises:
            ConfigurationError: The event fired in none of the episodes, or lacks ``attribute``.
        """
        stats = self.episode_stats(event, attribute, step_reducer, episode_reducer, group_by)
        if not stats:
            raise ConfigurationError(f"{_event_name(event)} fired in none of the {len(self.event_logs)} episodes")
        from matplotlib.figure import Figure

        figure = Figure(figsize=(7.0, 3.5), layout="constrained")
        axes = figure.add_subplot()
        width = 0.8 / len(stats)
        positions = np.arange(len(self.event_logs))
        for offset, (group, values) in enumerate(stats.items()):
            label = f"{group_by}={group}" if group_by else None
            axes.bar(positions + offset * width - 0.4 + width / 2, values, width=width, label=label)
        axes.set_xticks(positions)
        axes.set_xlabel("episode")
        axes.set_ylabel(attribute or "count")
        axes.set_title(f"{_event_name(event)} per episode", loc="left")
        if group_by:
            axes.legend(fontsize="small")
        return figure
