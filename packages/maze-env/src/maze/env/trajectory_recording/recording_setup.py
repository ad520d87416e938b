"""A context manager that writes the trajectories of everything recorded inside it."""

from __future__ import annotations

from pathlib import Path
from types import TracebackType
from typing import Optional, Union

from maze.env.trajectory_recording.trajectory_files import TrajectoryFormat, TrajectoryWriterFile
from maze.env.trajectory_recording.trajectory_writer import TrajectoryWriterRegistry

__all__ = ["SimpleTrajectoryRecordingSetup"]


class SimpleTrajectoryRecordingSetup:
    """Registers a :class:`TrajectoryWriterFile` on enter and unregisters it on exit.

    Episodes are recorded by ``TrajectoryRecordingWrapper``; each one that ends inside the
    block becomes ``<log_dir>/<episode id>.traj.npz`` (data-only; ``.pkl`` with ``format="pickle"``). An episode still running at the end of
    the block is written when the wrapper is flushed or closed (``env.close()``) inside it.

    Example::

        env = TrajectoryRecordingWrapper(GymMazeEnv("CartPole-v1"))
        with SimpleTrajectoryRecordingSetup("trajectory_data"):
            ...  # run episodes

    Args:
        log_dir: Directory of the trajectory files.
        format: ``"data"`` (default, data-only files) or ``"pickle"`` (explicit opt-in), see
            :class:`TrajectoryWriterFile`.
    """

    def __init__(self, log_dir: Union[str, Path] = "trajectory_data", format: TrajectoryFormat = "data") -> None:
        self.writer = TrajectoryWriterFile(log_dir=log_dir, format=format)

    def __enter__(self) -> SimpleTrajectoryRecordingSetup:
        TrajectoryWriterRegistry.register_writer(self.writer)
        return self

    def __exit__(
        self,
        exc_type: Optional[type[BaseException]],
        exc_value: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        TrajectoryWriterRegistry.unregister_writer(self.writer)
