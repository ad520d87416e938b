"""The business metric of the Cutting-2D env."""

from __future__ import annotations

from typing import Any

from maze.env.examples.cutting_2d.events import InventoryEvents
from maze.env.log_events.episode_event_log import EpisodeEventLog
from maze.env.log_events.kpi_calculator import KpiCalculator

__all__ = ["Cutting2dKpiCalculator"]


class Cutting2dKpiCalculator(KpiCalculator):
    """Computes ``raw_piece_usage_per_step``: raw pieces replenished per env step.

    Lower is better; it is the quantity a cutting policy should minimise. The raw piece
    put into the inventory by ``reset`` is not counted (it is not part of any step).
    Steps are counted by distinct env time, so the two sub-steps of the structured env
    make one step.
    """

    def calculate_kpis(self, episode_event_log: EpisodeEventLog, last_maze_state: Any) -> dict[str, float]:
        """Returns ``{"raw_piece_usage_per_step": replenishments / steps}`` (0.0 for an empty episode)."""
        steps = len(set(episode_event_log.step_env_times()))
        replenishments = sum(1 for _ in episode_event_log.query_events(InventoryEvents.piece_replenished))
        return {"raw_piece_usage_per_step": replenishments / steps if steps else 0.0}
