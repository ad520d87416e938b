"""Rollout outputs that cannot be written (full disk, no permission) reported as such, not as env or policy failures.

A rollout writes its trajectory files and event logs from inside the env stack (at the end of
an episode), so an :class:`OSError` of a writer would otherwise surface as an error of the
env. :class:`GuardedTrajectoryWriter` and :class:`GuardedEventsWriter` turn it into a
:class:`RolloutOutputError` that names the file (or directory) and the cause.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from maze.env.errors import MazeError
from maze.env.log_events.episode_event_log import EpisodeEventLog
from maze.env.log_events.log_events_writer import LogEventsWriter
from maze.env.trajectory_recording.records import TrajectoryRecord
from maze.env.trajectory_recording.trajectory_writer import TrajectoryWriter

__all__ = ["GuardedEventsWriter", "GuardedTrajectoryWriter", "RolloutOutputError", "writing_outputs"]

_STORAGE_FULL = {errno.ENOSPC: "the disk is full", errno.EDQUOT: "the disk quota is used up"}
"""The errnos of a storage that has no room left, and how messages name them."""


class RolloutOutputError(MazeError):
    """A rollout's trajectory files or event logs could not be written (the storage, not the env or policy)."""


@contextmanager
def writing_outputs(what: str, directory: Path) -> Iterator[None]:
    """Turns an :class:`OSError` of the ``with`` block into a :class:`RolloutOutputError`.

    Args:
        what: What is being written, for the message (e.g. ``trajectory file``).
        directory: Named when the error names no file.

    Raises:
        RolloutOutputError: Naming the file (or ``directory``), the errno and what to do.
    """
    try:
        yield
    except OSError as error:
        raise RolloutOutputError(_describe(error, what, directory)) from error


def _describe(error: OSError, what: str, directory: Path) -> str:
    path = error.filename if error.filename is not None else directory
    code = errno.errorcode.get(error.errno, "OSError") if error.errno is not None else "OSError"
    reason = f"{code}: {error.strerror or error}"
    full = _STORAGE_FULL.get(error.errno)
    cause = f"{full} ({reason})" if full else reason
    remedy = "free space there" if full else "make it writable"
    return (
        f"cannot write the {what} {str(path)!r}: {cause}. The env and the policy are not at fault: {remedy} or "
        "write the outputs to another directory (hydra.run.dir=<path>), or record less "
        "(runner.record_trajectory=false, runner.record_event_logs=false)"
    )


class GuardedTrajectoryWriter(TrajectoryWriter):
    """Writes through another trajectory writer; its :class:`OSError` becomes a :class:`RolloutOutputError`.

    Args:
        writer: The writer (e.g. a ``TrajectoryWriterFile``).
        directory: Where it writes (named when an error names no file).
    """

    def __init__(self, writer: TrajectoryWriter, directory: Path) -> None:
        self.writer = writer
        self.directory = directory

    def write(self, episode_record: TrajectoryRecord) -> None:
        """Writes the episode's record (see the class docs)."""
        with writing_outputs("trajectory file", self.directory):
            self.writer.write(episode_record)


class GuardedEventsWriter(LogEventsWriter):
    """Writes through another event log writer; its :class:`OSError` becomes a :class:`RolloutOutputError`.

    Args:
        writer: The writer (e.g. a ``LogEventsWriterTSV``).
        directory: Where it writes (named when an error names no file).
    """

    def __init__(self, writer: LogEventsWriter, directory: Path) -> None:
        self.writer = writer
        self.directory = directory

    def write(self, episode_event_log: EpisodeEventLog) -> None:
        """Writes the episode's events (see the class docs)."""
        with writing_outputs("event log", self.directory):
            self.writer.write(episode_event_log)
