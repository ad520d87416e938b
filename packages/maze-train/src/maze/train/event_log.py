"""Trainer events shared by all trainers: the per-update event log, the epoch-mean statistic and the timings.

:class:`TrainerEventLog` reduces a trainer's per-update events to epoch statistics;
:func:`epoch_mean` declares an event whose values are averaged over the epoch, and
:class:`UpdateTimingEvents` holds the timings every RL trainer reports (its events topics
extend it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from maze.env.core.events import EventRecord
from maze.env.log_stats.aggregator import LogStatsAggregator
from maze.env.log_stats.event_decorators import define_episode_stats, define_epoch_stats, define_step_stats
from maze.env.log_stats.log_stats import LogStats

__all__ = ["TrainerEventLog", "UpdateTimingEvents", "epoch_mean"]

EventMethod = TypeVar("EventMethod", bound=Callable[..., Any])


def _mean_of_all(values: list) -> float:
    """The mean of all values of all updates (updates may record different numbers of values)."""
    return float(np.mean(np.concatenate([np.ravel(value) for value in values])))


def epoch_mean(method: EventMethod) -> EventMethod:
    """Declares an event with raw values per update, averaged over the epoch."""
    method = define_step_stats(None)(method)
    method = define_episode_stats(_mean_of_all)(method)
    return define_epoch_stats(np.mean)(method)


class UpdateTimingEvents:
    """The timings every RL trainer reports; its events topic (e.g. ActorCriticEvents) extends this class."""

    @epoch_mean
    def time_epoch(self, value: float) -> None:
        """Seconds the epoch's rollouts and updates took (evaluation excluded)."""

    @epoch_mean
    def time_rollout(self, value: float) -> None:
        """Seconds the rollouts of one update (iteration) took."""

    @epoch_mean
    def time_update(self, value: float) -> None:
        """Seconds the optimization of one update (iteration) took."""


class TrainerEventLog:
    """Collects a trainer's events per update and reduces them to epoch statistics.

    Every update is one step of an aggregator "episode" that lasts one epoch.

    Args:
        topic: The event topic class whose events are recorded.
    """

    def __init__(self, topic: type) -> None:
        self.topic = topic
        self._aggregator = LogStatsAggregator()
        self._records: list[EventRecord] = []

    def record(self, event: Callable, **attributes: Any) -> None:
        """Adds an event of the current update, e.g. ``record(ActorCriticEvents.policy_loss, substep=0, value=x)``."""
        self._records.append(EventRecord(self.topic, event, attributes))

    def end_update(self) -> None:
        """Closes the current update."""
        self._aggregator.add_step(self._records)
        self._records = []

    def epoch_stats(self) -> LogStats:
        """The epoch statistics of all updates since the last call (which starts a new epoch)."""
        if self._records:
            self.end_update()
        self._aggregator.end_episode()
        return self._aggregator.reduce()
