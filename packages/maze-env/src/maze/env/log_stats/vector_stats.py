"""Statistics of the envs inside a vector env, merged into one aggregator.

Every env of the vector env wraps a :class:`~maze.env.wrappers.log_stats_wrapper.LogStatsWrapper`,
which ends its episodes itself (vector envs reset finished envs within ``step``). The
statistics of those finished episodes are moved out of every env with the vector env's
``call("take_episode_stats")`` (in the worker processes for a SubprocVectorEnv) and merged::

    aggregator = LogStatsAggregator()
    ...step the vector env...
    collect_episode_stats(vector_env, aggregator)
    epoch_stats = aggregator.reduce()   # episode_count: the finished episodes of all envs
"""

from __future__ import annotations

from typing import Any

from maze.env.errors import ConfigurationError
from maze.env.log_stats.aggregator import EpisodeStatsBatch, LogStatsAggregator

__all__ = ["collect_episode_stats"]


def collect_episode_stats(vector_env: Any, aggregator: LogStatsAggregator) -> int:
    """Moves the finished-episode statistics of every env of ``vector_env`` into ``aggregator``.

    Args:
        vector_env: A SequentialVectorEnv or SubprocVectorEnv whose envs have a LogStatsWrapper.
        aggregator: Receives the episodes into its current epoch.

    Returns:
        The number of episodes merged.

    Raises:
        ConfigurationError: An env returned no statistics (it has no LogStatsWrapper).
    """
    if not hasattr(vector_env, "call"):
        raise ConfigurationError(
            f"collect_episode_stats needs a vector env with a call() method, got {type(vector_env).__name__}"
        )
    merged = 0
    for index, batch in enumerate(vector_env.call("take_episode_stats")):
        if not isinstance(batch, EpisodeStatsBatch):
            raise ConfigurationError(
                f"env {index} of the vector env returned {batch!r} for take_episode_stats; wrap every env with "
                "LogStatsWrapper in the env factory"
            )
        aggregator.add_episode_stats(batch)
        merged += len(batch.episodes)
    return merged
