"""Built-in event topics: rewards, KPIs, observations and actions.

* :class:`BaseEnvEvents` — always logged by :class:`~maze.env.wrappers.log_stats_wrapper.LogStatsWrapper`:
  the reward of every step and the KPIs of every episode.
* :class:`ObservationEvents`, :class:`DiscreteActionEvents`,
  :class:`ContinuousActionEvents`, :class:`MultiBinaryActionEvents` and
  :class:`RewardEvents` — fired by
  :class:`~maze.env.wrappers.monitoring_wrapper.MazeEnvMonitoringWrapper` when its
  logging options are on. Their epoch statistics are histograms (all values of the
  epoch), shown as ``[len:N, μ:X]`` on the console.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from maze.env.log_stats.event_decorators import (
    define_episode_stats,
    define_epoch_stats,
    define_stats_grouping,
    define_step_stats,
    histogram,
)

__all__ = [
    "BaseEnvEvents",
    "ActorEvents",
    "RewardEvents",
    "ObservationEvents",
    "DiscreteActionEvents",
    "ContinuousActionEvents",
    "MultiBinaryActionEvents",
]


EventMethod = TypeVar("EventMethod", bound=Callable[..., Any])


def _histogram_stats(method: EventMethod) -> EventMethod:
    """Declares histogram statistics: every value of the episode, then of the epoch, is kept."""
    method = define_step_stats(None)(method)
    method = define_episode_stats(histogram)(method)
    return define_epoch_stats(histogram)(method)


class BaseEnvEvents:
    """Statistics every env has: rewards, episode lengths and KPIs."""

    @define_epoch_stats(max, output_name="max")
    @define_epoch_stats(min, output_name="min")
    @define_epoch_stats(np.mean, output_name="mean")
    @define_epoch_stats(np.std, output_name="std")
    @define_epoch_stats(len, input_name="step_count", output_name="episode_count")
    @define_epoch_stats(len, input_name="step_count", output_name="total_episode_count", cumulative=True)
    @define_epoch_stats(sum, input_name="step_count", output_name="total_step_count", cumulative=True)
    @define_epoch_stats(np.mean, input_name="step_count", output_name="mean_step_count")
    @define_epoch_stats(np.median, input_name="step_count", output_name="median_step_count")
    @define_episode_stats(sum)
    @define_episode_stats(len, output_name="step_count")
    @define_step_stats(sum)
    def reward(self, value: float) -> None:
        """The reward of one step.

        Episode statistics: the return (unnamed) and the step count. Epoch statistics: the
        median/mean step count, the total step and episode counts since the statistics
        were created, the episode count of the epoch, and std/mean/min/max of the returns.
        """

    @define_epoch_stats(np.mean, output_name="mean")
    @define_epoch_stats(np.std, output_name="std")
    @define_epoch_stats(min, output_name="min")
    @define_epoch_stats(max, output_name="max")
    @define_episode_stats(np.mean)
    @define_step_stats(None)
    @define_stats_grouping("name")
    def kpi(self, name: str, value: float) -> None:
        """A key performance indicator ``name`` of a finished episode (fired once per episode)."""


class ActorEvents:
    """Per-actor returns of envs with dynamic agents (logged by the LogStatsWrapper for them).

    An actor's return is the sum of every reward from its first action until it is done
    (``is_actor_done()``) or the episode ends: the rewards that follow one of its actions,
    up to its next action, count for it (see the dynamic-agents section of maze-train).
    """

    @define_epoch_stats(np.mean, output_name="mean")
    @define_epoch_stats(min, output_name="min")
    @define_epoch_stats(max, output_name="max")
    @define_epoch_stats(sum, input_name="count", output_name="actor_count")
    @define_episode_stats(np.mean)
    @define_episode_stats(len, output_name="count")
    @define_step_stats(None)
    @define_stats_grouping("step_key")
    def actor_return(self, step_key: Any, value: float) -> None:
        """The return of one actor of sub-step ``step_key`` (fired when the actor's part of the episode ends)."""


class RewardEvents:
    """Rewards as the monitoring wrapper sees them (after the reward wrappers below it)."""

    @_histogram_stats
    def reward_processed(self, value: float) -> None:
        """The reward of one step."""


class ObservationEvents:
    """Observations per sub-step and observation key."""

    @_histogram_stats
    @define_stats_grouping("substep_name", "name")
    def observation_original(self, substep_name: str, name: str, value: Any) -> None:
        """An observation as the MazeEnv's observation conversion produced it."""

    @_histogram_stats
    @define_stats_grouping("substep_name", "name")
    def observation_processed(self, substep_name: str, name: str, value: Any) -> None:
        """An observation after the wrappers below the monitoring wrapper (what the agent sees)."""


class DiscreteActionEvents:
    """Discrete (and multi-discrete) actions per sub-step and action key."""

    @_histogram_stats
    @define_stats_grouping("substep_name", "name")
    def action(self, substep_name: str, name: str, value: int) -> None:
        """The discrete action ``name`` taken in sub-step ``substep_name``."""


class ContinuousActionEvents:
    """Continuous (Box) actions per sub-step and action key."""

    @_histogram_stats
    @define_stats_grouping("substep_name", "name")
    def action(self, substep_name: str, name: str, value: np.ndarray) -> None:
        """The continuous action ``name`` taken in sub-step ``substep_name``."""


class MultiBinaryActionEvents:
    """Multi-binary actions per sub-step and action key."""

    @_histogram_stats
    @define_stats_grouping("substep_name", "name")
    def action(self, substep_name: str, name: str, value: np.ndarray) -> None:
        """The multi-binary action ``name`` taken in sub-step ``substep_name``."""
