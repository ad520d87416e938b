"""LogStatsEnv: the interface of envs that aggregate statistics (implemented by LogStatsWrapper)."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable
from typing import Optional, Union

from maze.env.core._meta import StackTransparentMeta
from maze.env.log_stats.aggregator import EpisodeStatsBatch
from maze.env.log_stats.event_decorators import LogStatsLevel
from maze.env.log_stats.log_stats import LogStats, LogStatsGroup, LogStatsValue, event_names

__all__ = ["LogStatsEnv", "stats_value"]


def stats_value(
    stats: LogStats, event: Callable, name: Optional[str] = None
) -> Union[LogStatsValue, dict[LogStatsGroup, LogStatsValue]]:
    """Looks up the statistic ``name`` of ``event`` (an event method such as ``BaseEnvEvents.reward``).

    Returns:
        The value for an ungrouped event; for a grouped event a dict from group values
        (e.g. ``("raw_piece_usage_per_step",)``) to value.

    Raises:
        KeyError: ``stats`` holds no such statistic; the message lists the event's statistic names.
    """
    topic, event_name = event_names(event)
    found = {
        key.groups: value
        for key, value in stats.items()
        if key.topic == topic and key.event == event_name and key.name == name
    }
    if not found:
        names = sorted({str(key.name) for key in stats if key.topic == topic and key.event == event_name})
        raise KeyError(
            f"no statistic {name!r} of the event {topic}.{event_name} in these statistics; "
            f"{'its statistics are ' + str(names) if names else 'the event has none (did an episode end yet?)'}"
        )
    return found[()] if list(found) == [()] else found


class LogStatsEnv(metaclass=StackTransparentMeta):
    """An env (usually a wrapper stack with a LogStatsWrapper) whose statistics can be queried and written."""

    @abstractmethod
    def get_stats(self, level: LogStatsLevel) -> LogStats:
        """The latest statistics of ``level``: the last step, the last finished episode or the last written epoch."""

    def get_stats_value(
        self, event: Callable, level: LogStatsLevel, name: Optional[str] = None
    ) -> Union[LogStatsValue, dict[LogStatsGroup, LogStatsValue]]:
        """One statistic, e.g. ``get_stats_value(BaseEnvEvents.reward, LogStatsLevel.EPOCH, name="mean")``.

        Raises:
            KeyError: There is no such statistic (see :func:`stats_value`).
        """
        return stats_value(self.get_stats(level), event, name)

    @abstractmethod
    def write_epoch_stats(self) -> None:
        """Computes the epoch statistics, writes them through the registered writers and starts a new epoch."""

    @abstractmethod
    def clear_epoch_stats(self) -> None:
        """Drops the statistics of the current epoch without writing them."""

    @abstractmethod
    def finish_episode_stats(self) -> None:
        """Ends the statistics of the running episode now (KPIs included); the env itself is untouched."""

    @abstractmethod
    def take_episode_stats(self) -> EpisodeStatsBatch:
        """Moves the statistics of the epoch's finished episodes out (to merge them elsewhere)."""
