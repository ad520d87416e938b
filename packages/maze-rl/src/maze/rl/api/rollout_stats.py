"""RolloutStats: the episode statistics of a rollout, read by name (``stats["BaseEnvEvents/reward/mean"]``)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from maze.env.log_stats.log_stats import LogStats, LogStatsValue
from maze.env.utils.suggestions import close_matches
from maze.train.tensorboard import stats_tag

__all__ = ["RolloutStats"]


class RolloutStats(Mapping[str, LogStatsValue]):
    """The statistics table of a rollout as a read-only mapping from readable names to values.

    A name is ``<topic>/<event>/<statistic>``, followed by the group values of grouped
    events: ``"BaseEnvEvents/reward/mean"``, ``"BaseEnvEvents/reward/episode_count"``,
    ``"BaseEnvEvents/kpi/mean/<kpi name>"`` (the TensorBoard tags of a run, without the
    ``rollout_`` prefix). ``dict(stats)`` gives a plain dict, ``print(stats)`` lists all
    names; an unknown name raises a KeyError with the closest names.

    Attributes:
        log_stats: The same table keyed by :class:`~maze.env.log_stats.log_stats.LogStatsKey`
            (for :func:`~maze.env.log_stats.log_stats_env.stats_value` and stats writers).
    """

    def __init__(self, log_stats: LogStats) -> None:
        self.log_stats: LogStats = dict(log_stats)
        self._values = {stats_tag(None, key): value for key, value in self.log_stats.items()}

    def __getitem__(self, name: str) -> LogStatsValue:
        try:
            return self._values[name]
        except KeyError:
            close = close_matches(str(name), self._values, limit=3)
            hint = f"did you mean {close}?" if close else f"the names are {list(self._values)}"
            raise KeyError(f"the rollout statistics have no {name!r}; {hint}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"RolloutStats({self._values!r})"
