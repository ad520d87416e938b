"""SimpleStatsLoggingSetup: print (and optionally save) an env's statistics for one ``with`` block."""

from __future__ import annotations

from pathlib import Path
from types import TracebackType
from typing import Any, Optional, Union

from maze.env.log_stats.global_state import increment_log_step, register_log_stats_writer, unregister_log_stats_writer
from maze.env.log_stats.log_stats_env import LogStatsEnv
from maze.env.log_stats.writers import LogStatsWriter, LogStatsWriterConsole, LogStatsWriterFile

__all__ = ["SimpleStatsLoggingSetup"]


class SimpleStatsLoggingSetup:
    """Registers statistics writers for a ``with`` block and writes the env's statistics when it ends.

    On entry a console writer (and, with ``log_dir``, a file writer) is registered. On exit
    the env's running episode is ended (its KPIs included), the log step advances by one
    and the epoch statistics are written once under the env's logging prefix; then the
    writers are unregistered. A fresh process therefore prints its table with step 1::

        env = LogStatsWrapper.wrap(env, logging_prefix="main")
        with SimpleStatsLoggingSetup(env):
            env.reset()
            for _ in range(15):
                env.step(env.action_space.sample())

    Args:
        env: An env with a :class:`~maze.env.wrappers.log_stats_wrapper.LogStatsWrapper` in its stack.
        log_dir: Directory for a copy of the table (``log_stats.txt``); None: console only.
    """

    def __init__(self, env: Any, log_dir: Optional[Union[str, Path]] = None) -> None:
        if not isinstance(env, LogStatsEnv):
            raise TypeError(
                f"SimpleStatsLoggingSetup needs an env with statistics; wrap {type(env).__name__} with "
                "LogStatsWrapper.wrap(env, logging_prefix=...) first"
            )
        self.env = env
        self.log_dir = log_dir
        self._writers: list[LogStatsWriter] = []

    def __enter__(self) -> SimpleStatsLoggingSetup:
        self._writers = [LogStatsWriterConsole()]
        if self.log_dir is not None:
            self._writers.append(LogStatsWriterFile(self.log_dir))
        for writer in self._writers:
            register_log_stats_writer(writer)
        return self

    def __exit__(
        self,
        exc_type: Optional[type[BaseException]],
        exc: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        try:
            if exc_type is None:
                self.env.finish_episode_stats()
                increment_log_step()
                self.env.write_epoch_stats()
        finally:
            for writer in self._writers:
                unregister_log_stats_writer(writer)
            self._writers = []
