"""A context manager that writes the raw event logs of everything run inside it."""

from __future__ import annotations

from pathlib import Path
from types import TracebackType
from typing import Any, Optional, Union

from maze.env.log_events.log_events_writer import LogEventsWriterTSV
from maze.env.log_events.log_events_writer_registry import LogEventsWriterRegistry

__all__ = ["SimpleEventLoggingSetup"]


class SimpleEventLoggingSetup:
    """Registers a :class:`LogEventsWriterTSV` on enter and unregisters it on exit.

    Event logs are produced by the statistics wrapper at the end of each episode, so the
    env must be wrapped with it for any file to appear.

    Example::

        with SimpleEventLoggingSetup(env, log_dir="event_logs"):
            ...  # run episodes

    Args:
        env: Optional env (stack). When given, it is reset on exit so that the episode
            still running is finished and its events are written too; it must still be
            open then.
        log_dir: Directory of the event log files.
    """

    def __init__(self, env: Optional[Any] = None, log_dir: Union[str, Path] = "event_logs") -> None:
        self.env = env
        self.writer = LogEventsWriterTSV(log_dir=log_dir)

    def __enter__(self) -> SimpleEventLoggingSetup:
        LogEventsWriterRegistry.register_writer(self.writer)
        return self

    def __exit__(
        self,
        exc_type: Optional[type[BaseException]],
        exc_value: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        try:
            if self.env is not None and exc_type is None:
                self.env.reset()
        finally:
            LogEventsWriterRegistry.unregister_writer(self.writer)
