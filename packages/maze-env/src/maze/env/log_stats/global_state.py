"""The process-wide logging state: registered writers and the current log step.

Everything that logs statistics (envs behind a LogStatsWrapper, trainers, rollout
runners) writes through the writers registered here, stamped with one shared log step::

    register_log_stats_writer(LogStatsWriterConsole())
    increment_log_step()                       # the first log round is step 1
    get_stats_logger("train").log_stats(stats)  # printed with step 1 and prefix "train"

The step starts at 0 and only :func:`increment_log_step` advances it (a runner calls it
once per epoch, before writing the epoch's statistics).
"""

from __future__ import annotations

from typing import Optional

from maze.env.log_stats.log_stats import LogStats
from maze.env.log_stats.writers import LogStatsWriter

__all__ = [
    "GlobalLogState",
    "LogStatsLogger",
    "register_log_stats_writer",
    "unregister_log_stats_writer",
    "log_stats",
    "get_stats_logger",
    "increment_log_step",
    "get_log_step",
    "set_log_step",
    "clear_global_state",
]


class GlobalLogState:
    """The registered writers and the current log step of this process (class-level state)."""

    step: int = 0
    writers: list[LogStatsWriter] = []


class LogStatsLogger:
    """Writes statistics under one logging prefix through every registered writer.

    Args:
        prefix: Logging prefix (``train``, ``eval``, ``rollout_stats``, ...; None: no prefix).
    """

    def __init__(self, prefix: Optional[str]) -> None:
        self.prefix = prefix

    def log_stats(self, stats: LogStats, step: Optional[int] = None) -> None:
        """Writes ``stats`` at ``step`` (None: the current log step)."""
        log_stats(stats, self.prefix, step)


def register_log_stats_writer(writer: LogStatsWriter) -> None:
    """Adds a writer that receives every statistics write from now on.

    Raises:
        TypeError: ``writer`` is not a :class:`LogStatsWriter`.
    """
    if not isinstance(writer, LogStatsWriter):
        raise TypeError(
            f"register_log_stats_writer needs a LogStatsWriter (e.g. LogStatsWriterConsole()), got {writer!r}"
        )
    GlobalLogState.writers.append(writer)


def unregister_log_stats_writer(writer: LogStatsWriter) -> None:
    """Removes a registered writer (and closes it); unknown writers are ignored."""
    if writer in GlobalLogState.writers:
        GlobalLogState.writers.remove(writer)
        writer.close()


def log_stats(stats: LogStats, prefix: Optional[str] = None, step: Optional[int] = None) -> None:
    """Writes ``stats`` under ``prefix`` through every registered writer.

    Args:
        stats: The statistics.
        prefix: Logging prefix (None: no prefix).
        step: The log step they belong to (None: the current one; a background evaluation
            reports the step of the epoch it evaluated).
    """
    for writer in list(GlobalLogState.writers):
        writer.write(prefix, GlobalLogState.step if step is None else step, stats)


def get_stats_logger(prefix: Optional[str]) -> LogStatsLogger:
    """A logger writing under ``prefix`` through the registered writers."""
    return LogStatsLogger(prefix)


def increment_log_step() -> int:
    """Advances the log step by one and returns the new step."""
    GlobalLogState.step += 1
    return GlobalLogState.step


def set_log_step(step: int) -> None:
    """Sets the log step, e.g. to the epochs of a resumed run, so that its statistics continue that run's steps."""
    GlobalLogState.step = int(step)


def get_log_step() -> int:
    """The current log step."""
    return GlobalLogState.step


def clear_global_state() -> None:
    """Unregisters (and closes) every writer and sets the log step back to 0."""
    for writer in list(GlobalLogState.writers):
        unregister_log_stats_writer(writer)
    GlobalLogState.step = 0
