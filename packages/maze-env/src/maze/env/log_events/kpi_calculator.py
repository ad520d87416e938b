"""The interface of KPI calculators: business metrics computed once per episode."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from maze.env.log_events.episode_event_log import EpisodeEventLog

__all__ = ["KpiCalculator"]


class KpiCalculator(ABC):
    """Computes an env's key performance indicators at the end of an episode.

    A CoreEnv returns its calculator from ``get_kpi_calculator()``; the statistics
    machinery calls :meth:`calculate_kpis` once per finished episode and logs each KPI as
    ``BaseEnvEvents kpi <stat>/<kpi name>``.
    """

    @abstractmethod
    def calculate_kpis(self, episode_event_log: EpisodeEventLog, last_maze_state: Any) -> dict[str, float]:
        """Returns the KPIs of the finished episode by name."""
