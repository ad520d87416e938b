"""The trajectory writer interface and the process-wide registry of writers."""

from __future__ import annotations

from abc import ABC, abstractmethod

from maze.env.trajectory_recording.records import TrajectoryRecord
from maze.env.utils.writer_registry import WriterRegistry

__all__ = ["TrajectoryWriter", "TrajectoryWriterRegistry"]


class TrajectoryWriter(ABC):
    """Stores finished episodes (e.g. as files, see ``TrajectoryWriterFile``)."""

    @abstractmethod
    def write(self, episode_record: TrajectoryRecord) -> None:
        """Stores the record of one finished episode."""


class _TrajectoryWriters(WriterRegistry[TrajectoryRecord]):
    """The trajectory writers; the recording wrapper calls ``record_trajectory_data`` at the end of each episode."""

    record_trajectory_data = WriterRegistry.record


TrajectoryWriterRegistry = _TrajectoryWriters(
    "TrajectoryWriterRegistry", TrajectoryWriter, example="TrajectoryWriterFile"
)
"""The :class:`~maze.env.utils.writer_registry.WriterRegistry` of the trajectory writers: hands every finished
episode's record to the writers registered (e.g. by ``SimpleTrajectoryRecordingSetup``); free while none is."""
