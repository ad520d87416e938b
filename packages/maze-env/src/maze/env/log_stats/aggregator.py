"""LogStatsAggregator: events of steps → step, episode and epoch statistics.

The aggregator follows the declarations of :mod:`maze.env.log_stats.event_decorators`.
It does no work while an episode runs: :meth:`LogStatsAggregator.add_step` only copies the
step's events into its :class:`~maze.env.core.events.EventColumns` (no object per event for
the garbage collector), and :meth:`~LogStatsAggregator.end_episode` computes the
step statistics of every kept step and reduces them to episode statistics. Epoch
statistics are computed by :meth:`~LogStatsAggregator.reduce`.

Rules for events that did not fire:

* A step in which an event did not fire produces no step statistic of that event (so
  ``define_step_stats(len)`` never counts a zero).
* An episode in which an event never fired produces no episode statistic of that event:
  the epoch statistics of the event are reduced over the episodes in which it fired only.
  E.g. ``mean_episode_total`` of an event that fired 3 times in one of two episodes is 3.
* An event (or group) without any episode statistic in an epoch produces no epoch
  statistics in that epoch.

Finished-episode statistics travel between aggregators (vector envs, worker processes)
as :class:`EpisodeStatsBatch`: :meth:`~LogStatsAggregator.take_episode_stats` moves them
out of one aggregator and :meth:`~LogStatsAggregator.add_episode_stats` merges them into
another, whose epoch then counts the episodes of all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
from maze.env.core.events import EventColumns, EventRecord
from maze.env.errors import ConfigurationError
from maze.env.log_stats._event_plan import EventPlan, episode_step_stats, event_method, plan_for, reduce_values
from maze.env.log_stats.event_decorators import LogStatsLevel
from maze.env.log_stats.log_stats import LogStats, LogStatsGroup, LogStatsKey

__all__ = ["LogStatsAggregator", "EpisodeStatsBatch", "step_stats", "event_method"]


@dataclass
class EpisodeStatsBatch:
    """Statistics of finished episodes, ready to be merged into another aggregator (picklable).

    Attributes:
        events: The event method behind each ``(topic, event)`` name of the statistics
            (their declarations define the epoch statistics).
        episodes: One stats dict per finished episode, in the order the episodes ended.
    """

    events: dict[tuple[str, str], Callable] = field(default_factory=dict)
    episodes: list[LogStats] = field(default_factory=list)


def step_stats(events: Sequence[EventRecord]) -> LogStats:
    """The step statistics of one step's events."""
    columns = events if isinstance(events, EventColumns) else EventColumns(events)
    stats: LogStats = {}
    step_of = [0] * len(columns)
    for (plan, groups), by_name in episode_step_stats(columns, step_of, only_episode_stats=False).items():
        for definition in plan.step:
            stats[plan.key(definition, groups)] = by_name[definition.output_name][0]
    return stats


class LogStatsAggregator:
    """Aggregates the events of steps into step, episode and epoch statistics.

    Typical use, once per episode::

        for each step: aggregator.add_step(list_of_the_step_events)
        episode_stats = aggregator.end_episode()
        ...
        epoch_stats = aggregator.reduce()   # once per epoch; starts the next epoch

    Cumulative epoch statistics (``define_epoch_stats(..., cumulative=True)``) keep the
    episode statistics they read for the aggregator's whole life (one value per episode).
    """

    def __init__(self) -> None:
        # The running episode's events, all steps in one set of columns, and the step of each.
        self._step_events = EventColumns()
        self._event_steps: list[int] = []
        self._step_count = 0
        self._last_step_start = 0
        self._precomputed: list[tuple[EventPlan, list]] = []
        self._events: dict[tuple[str, str], Callable] = {}
        self._epoch_episodes: list[LogStats] = []
        self._history: dict[LogStatsKey, list] = {}
        self._last_episode: LogStats = {}
        self._last_epoch: LogStats = {}

    # --- episodes ------------------------------------------------------------------------

    def add_step(self, events: Sequence[EventRecord]) -> None:
        """Adds the events of one step of the running episode."""
        self.add_steps(events, (len(events),))

    def add_steps(self, events: Sequence[EventRecord], step_ends: Sequence[int]) -> None:
        """Adds the events of several steps of the running episode, given in one sequence.

        Args:
            events: The events of the steps, in step order.
            step_ends: Per step, the end of its events in ``events`` (non-decreasing; the
                last one is ``len(events)``).
        """
        if not step_ends:
            return
        events_per_step = np.diff(step_ends, prepend=0)
        steps = np.arange(self._step_count, self._step_count + len(step_ends))
        self._event_steps.extend(np.repeat(steps, events_per_step).tolist())
        self._step_events.extend(events)
        self._step_count += len(step_ends)
        self._last_step_start = len(self._step_events) - int(events_per_step[-1])

    def add_step_stats(self, topic: type, event: Callable, values: list) -> None:
        """Adds unnamed, ungrouped step statistics of ``event`` computed by the caller, one per step.

        A fast path for values known without firing events (the reward of every step):
        they count as the unnamed step statistic of ``topic.event`` in the running episode.

        Raises:
            ConfigurationError: The event declares no statistics, groups them or reads named step statistics.
        """
        plan = plan_for(topic.__name__, event)
        if plan is None or plan.grouping or any(definition.input_name for definition in plan.episode):
            raise ConfigurationError(
                f"add_step_stats needs an event without grouping whose episode statistics read the unnamed step "
                f"statistic; {topic.__name__}.{getattr(event, '__name__', event)} does not qualify, fire it as an "
                "event instead"
            )
        self._precomputed.append((plan, values))

    def end_episode(self) -> LogStats:
        """Computes the running episode's statistics, adds them to the epoch and starts a new episode.

        Returns:
            The episode statistics (empty when no event with episode statistics fired).
        """
        inputs: dict[tuple[EventPlan, LogStatsGroup], dict[Optional[str], list]] = {}
        for plan, values in self._precomputed:
            inputs.setdefault((plan, ()), {}).setdefault(None, []).extend(values)
        step_stats_of_events = episode_step_stats(self._step_events, self._event_steps) if self._step_events else {}
        for key, by_name in step_stats_of_events.items():
            if key in inputs:
                for name, stats in by_name.items():
                    inputs[key].setdefault(name, []).extend(stats)
            else:
                inputs[key] = by_name
        episode: LogStats = {}
        for (plan, groups), by_name in inputs.items():
            if plan.episode:
                self._events[(plan.topic, plan.event)] = plan.method
            for definition in plan.episode:
                episode[plan.key(definition, groups)] = reduce_values(plan, definition, by_name[definition.input_name])
        self._step_events, self._event_steps, self._step_count = EventColumns(), [], 0
        self._precomputed = []
        if episode:
            self._epoch_episodes.append(episode)
        self._last_episode = episode
        return episode

    @property
    def episode_count(self) -> int:
        """Finished episodes in the current epoch (with at least one episode statistic)."""
        return len(self._epoch_episodes)

    # --- merging -------------------------------------------------------------------------

    def take_episode_stats(self) -> EpisodeStatsBatch:
        """Moves the statistics of the epoch's finished episodes out of this aggregator."""
        batch = EpisodeStatsBatch(events=dict(self._events), episodes=self._epoch_episodes)
        self._epoch_episodes = []
        return batch

    def add_episode_stats(self, batch: EpisodeStatsBatch) -> None:
        """Merges finished-episode statistics (e.g. of another env) into the current epoch."""
        self._events.update(batch.events)
        self._epoch_episodes.extend(batch.episodes)

    # --- epochs --------------------------------------------------------------------------

    def reduce(self) -> LogStats:
        """Computes the epoch statistics of the current epoch and starts the next epoch.

        Returns:
            The epoch statistics: per event (in the order they first ended an episode),
            per group (sorted) and per declaration (in the order the decorators were
            applied: bottom-up, the one nearest the method first).
        """
        inputs: dict[LogStatsKey, list] = {}
        for episode in self._epoch_episodes:
            for key, value in episode.items():
                inputs.setdefault(key, []).append(value)
        groups_by_event: dict[tuple[str, str], dict[LogStatsGroup, None]] = {}
        for key in inputs:
            groups_by_event.setdefault((key.topic, key.event), {})[key.groups] = None
        stats: LogStats = {}
        cumulative_inputs: set[LogStatsKey] = set()
        for (topic, event), groups_seen in groups_by_event.items():
            plan = plan_for(topic, self._events[(topic, event)])
            for groups in sorted(groups_seen, key=lambda values: tuple(map(str, values))):
                for definition in plan.epoch:
                    input_key = plan.input_key(definition, groups)
                    values = inputs[input_key]
                    if definition.cumulative:
                        cumulative_inputs.add(input_key)
                        values = self._history.get(input_key, []) + values
                    stats[plan.key(definition, groups)] = reduce_values(plan, definition, values)
        for input_key in cumulative_inputs:
            self._history.setdefault(input_key, []).extend(inputs[input_key])
        self._epoch_episodes = []
        self._last_epoch = stats
        return stats

    def clear_epoch(self) -> None:
        """Drops the finished episodes of the current epoch without computing statistics."""
        self._epoch_episodes = []

    def get_stats(self, level: LogStatsLevel) -> LogStats:
        """The latest statistics of a level.

        Args:
            level: ``STEP``: the step statistics of the last step added to the running
                episode (empty before the first); ``EPISODE``: the statistics of the last
                finished episode; ``EPOCH``: the statistics of the last reduced epoch.
        """
        if level == LogStatsLevel.STEP:
            return step_stats(self._step_events[self._last_step_start :]) if self._step_count else {}
        if level == LogStatsLevel.EPISODE:
            return dict(self._last_episode)
        return dict(self._last_epoch)
