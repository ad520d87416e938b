"""What the thermostat reports: its events (aggregated into the statistics tables) and its KPIs."""

from __future__ import annotations

from typing import Any

import numpy as np
from maze.env.log_events.episode_event_log import EpisodeEventLog
from maze.env.log_events.kpi_calculator import KpiCalculator
from maze.env.log_stats.event_decorators import define_episode_stats, define_epoch_stats, define_step_stats

__all__ = ["ThermostatEvents", "ThermostatKpiCalculator", "COMFORT_BAND"]

COMFORT_BAND = 1.0
"""Degrees Celsius around the setpoint that count as comfortable."""


class ThermostatEvents:
    """One event of each kind per env step, each with a single attribute (its value)."""

    @define_epoch_stats(np.mean, output_name="mean")
    @define_episode_stats(np.mean)
    @define_step_stats(None)
    def deviation(self, celsius: float) -> None:
        """How far the room temperature is from the setpoint after the step (absolute, °C)."""

    @define_epoch_stats(np.mean, output_name="mean_episode_total")
    @define_episode_stats(sum)
    @define_step_stats(None)
    def energy(self, kwh: float) -> None:
        """Energy spent on heating or cooling in the step."""


class ThermostatKpiCalculator(KpiCalculator):
    """``mean_abs_deviation`` (°C) and ``comfort_share`` (steps within :data:`COMFORT_BAND` of the setpoint)."""

    def calculate_kpis(self, episode_event_log: EpisodeEventLog, last_maze_state: Any) -> dict[str, float]:
        """The KPIs of the finished episode (0.0 for an episode without steps)."""
        deviations = [
            event.attributes["celsius"] for event in episode_event_log.query_events(ThermostatEvents.deviation)
        ]
        if not deviations:
            return {"mean_abs_deviation": 0.0, "comfort_share": 0.0}
        return {
            "mean_abs_deviation": float(np.mean(deviations)),
            "comfort_share": float(np.mean(np.asarray(deviations) <= COMFORT_BAND)),
        }
