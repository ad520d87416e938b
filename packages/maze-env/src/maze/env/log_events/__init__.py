"""Event logs of steps and episodes, and the KPI calculator interface."""

from maze.env.log_events.episode_event_log import EpisodeEventLog
from maze.env.log_events.kpi_calculator import KpiCalculator
from maze.env.log_events.log_events_writer import (
    EventLogFormatError,
    EventRow,
    LogEventsWriter,
    LogEventsWriterTSV,
    read_event_log_tsv,
)
from maze.env.log_events.log_events_writer_registry import LogEventsWriterRegistry
from maze.env.log_events.logging_setup import SimpleEventLoggingSetup
from maze.env.log_events.step_event_log import StepEventLog

__all__ = [
    "StepEventLog",
    "EpisodeEventLog",
    "KpiCalculator",
    "EventRow",
    "EventLogFormatError",
    "LogEventsWriter",
    "LogEventsWriterTSV",
    "LogEventsWriterRegistry",
    "SimpleEventLoggingSetup",
    "read_event_log_tsv",
]
