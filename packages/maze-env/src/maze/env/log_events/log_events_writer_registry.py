"""The process-wide registry of event log writers."""

from __future__ import annotations

from typing import ClassVar

from maze.env.log_events.episode_event_log import EpisodeEventLog
from maze.env.log_events.log_events_writer import LogEventsWriter

__all__ = ["LogEventsWriterRegistry"]


class LogEventsWriterRegistry:
    """Hands the event log of every finished episode to the registered writers.

    The statistics wrapper calls :meth:`record_event_logs` at the end of each episode.
    While no writer is registered that call returns at once, so event logging costs
    nothing unless it was asked for (e.g. with
    :class:`~maze.env.log_events.logging_setup.SimpleEventLoggingSetup`).

    The registry is a class: one set of writers per process. Worker processes of a
    parallel rollout register their own writers.
    """

    writers: ClassVar[list[LogEventsWriter]] = []

    @classmethod
    def register_writer(cls, writer: LogEventsWriter) -> None:
        """Adds a writer; it receives every episode recorded from now on.

        Raises:
            TypeError: ``writer`` is not a :class:`LogEventsWriter`.
        """
        if not isinstance(writer, LogEventsWriter):
            raise TypeError(
                f"LogEventsWriterRegistry.register_writer expects a LogEventsWriter (e.g. LogEventsWriterTSV), got "
                f"{type(writer).__name__}"
            )
        cls.writers.append(writer)

    @classmethod
    def unregister_writer(cls, writer: LogEventsWriter) -> None:
        """Removes a registered writer (nothing happens if it is not registered)."""
        if writer in cls.writers:
            cls.writers.remove(writer)

    @classmethod
    def record_event_logs(cls, episode_event_log: EpisodeEventLog) -> None:
        """Passes the event log of a finished episode to every registered writer."""
        if not cls.writers:
            return
        for writer in cls.writers:
            writer.write(episode_event_log)

    @classmethod
    def clear(cls) -> None:
        """Removes all writers."""
        cls.writers.clear()
