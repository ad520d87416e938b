"""Event logs of steps and episodes, and the KPI calculator interface."""

from maze.env.log_events.episode_event_log import EpisodeEventLog
from maze.env.log_events.kpi_calculator import KpiCalculator
from maze.env.log_events.step_event_log import StepEventLog

__all__ = ["StepEventLog", "EpisodeEventLog", "KpiCalculator"]
