"""TrainerEventLog: a trainer's per-update events reduced to epoch statistics (shared by all trainers)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from maze.env.core.events import EventRecord
from maze.env.log_stats.aggregator import LogStatsAggregator
from maze.env.log_stats.log_stats import LogStats

__all__ = ["TrainerEventLog"]


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
