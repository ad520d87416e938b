"""What the sorting env reports: its events (aggregated into the statistics tables) and its KPI."""

from __future__ import annotations

from typing import Any

import numpy as np
from maze.env.log_events.episode_event_log import EpisodeEventLog
from maze.env.log_events.kpi_calculator import KpiCalculator
from maze.env.log_stats.event_decorators import define_episode_stats, define_epoch_stats, define_step_stats

__all__ = ["SortingEvents", "SortingKpiCalculator"]


class SortingEvents:
    """One event per parcel; counted per step, summed per episode, averaged over an epoch."""

    @define_epoch_stats(np.mean, output_name="mean_episode_total")
    @define_episode_stats(sum)
    @define_step_stats(len)
    def sorted_correctly(self, bin_index: int) -> None:
        """The parcel went into the bin of its colour."""

    @define_epoch_stats(np.mean, output_name="mean_episode_total")
    @define_episode_stats(sum)
    @define_step_stats(len)
    def sorted_wrongly(self, bin_index: int, colour: int) -> None:
        """The parcel went into another bin."""

    @define_epoch_stats(np.mean, output_name="mean_episode_total")
    @define_episode_stats(sum)
    @define_step_stats(len)
    def parcel_broken(self) -> None:
        """A fragile parcel was handled fast and broke."""


class SortingKpiCalculator(KpiCalculator):
    """``sort_accuracy``: the share of an episode's parcels that went into the right bin."""

    def calculate_kpis(self, episode_event_log: EpisodeEventLog, last_maze_state: Any) -> dict[str, float]:
        """Returns ``{"sort_accuracy": correct / parcels}`` (0.0 for an empty episode)."""
        correct = sum(1 for _ in episode_event_log.query_events(SortingEvents.sorted_correctly))
        wrong = sum(1 for _ in episode_event_log.query_events(SortingEvents.sorted_wrongly))
        return {"sort_accuracy": correct / (correct + wrong) if correct + wrong else 0.0}
