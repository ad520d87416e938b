"""The trajectory writer interface and the process-wide registry of writers."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

from maze.env.trajectory_recording.records import TrajectoryRecord

__all__ = ["TrajectoryWriter", "TrajectoryWriterRegistry"]


class TrajectoryWriter(ABC):
    """Stores finished episodes (e.g. as files, see ``TrajectoryWriterFile``)."""

    @abstractmethod
    def write(self, episode_record: TrajectoryRecord) -> None:
        """Stores the record of one finished episode."""


class TrajectoryWriterRegistry:
    """Hands every finished episode's record to the registered writers.

    The recording wrapper calls :meth:`record_trajectory_data` at the end of each
    episode. While no writer is registered that call returns at once.

    The registry is a class: one set of writers per process. Worker processes of a
    parallel rollout register their own writers.
    """

    writers: ClassVar[list[TrajectoryWriter]] = []

    @classmethod
    def register_writer(cls, writer: TrajectoryWriter) -> None:
        """Adds a writer; it receives every episode recorded from now on.

        Raises:
            TypeError: ``writer`` is not a :class:`TrajectoryWriter`.
        """
        if not isinstance(writer, TrajectoryWriter):
            raise TypeError(
                f"TrajectoryWriterRegistry.register_writer expects a TrajectoryWriter (e.g. TrajectoryWriterFile), "
                f"got {type(writer).__name__}"
            )
        cls.writers.append(writer)

    @classmethod
    def unregister_writer(cls, writer: TrajectoryWriter) -> None:
        """Removes a registered writer (nothing happens if it is not registered)."""
        if writer in cls.writers:
            cls.writers.remove(writer)

    @classmethod
    def record_trajectory_data(cls, episode_record: TrajectoryRecord) -> None:
        """Passes a finished episode to every registered writer."""
        if not cls.writers:
            return
        for writer in cls.writers:
            writer.write(episode_record)

    @classmethod
    def clear(cls) -> None:
        """Removes all writers."""
        cls.writers.clear()
