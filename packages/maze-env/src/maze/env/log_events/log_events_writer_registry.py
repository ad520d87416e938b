"""The process-wide registry of event log writers."""

from __future__ import annotations

from maze.env.log_events.episode_event_log import EpisodeEventLog
from maze.env.log_events.log_events_writer import LogEventsWriter
from maze.env.utils.writer_registry import WriterRegistry

__all__ = ["LogEventsWriterRegistry"]


class _LogEventsWriters(WriterRegistry[EpisodeEventLog]):
    """The event log writers; the statistics wrapper calls ``record_event_logs`` at the end of each episode."""

    record_event_logs = WriterRegistry.record


LogEventsWriterRegistry = _LogEventsWriters("LogEventsWriterRegistry", LogEventsWriter, example="LogEventsWriterTSV")
"""The :class:`~maze.env.utils.writer_registry.WriterRegistry` of the event log writers: hands the event log of
every finished episode to the writers registered (e.g. by ``SimpleEventLoggingSetup``); free while none is."""
