"""Trajectory records, writers and the recording setup.

Trajectory files are data-only by default (plain arrays and JSON, see
:mod:`maze.env.trajectory_recording.trajectory_files`); pickles only by explicit opt-in.
"""

from maze.env.trajectory_recording.data_values import TrajectoryDataError
from maze.env.trajectory_recording.recording_setup import SimpleTrajectoryRecordingSetup
from maze.env.trajectory_recording.records import StateRecord, StateTrajectoryRecord, TrajectoryRecord
from maze.env.trajectory_recording.spaces_records import SpacesRecord, SpacesTrajectoryRecord, StructuredSpacesRecord
from maze.env.trajectory_recording.trajectory_files import (
    TRAJECTORY_FILE_PATTERNS,
    TrajectoryLoadError,
    TrajectoryMemoryError,
    TrajectoryWriterFile,
    episode_id_of,
    is_trajectory_file,
    load_trajectory,
)
from maze.env.trajectory_recording.trajectory_writer import TrajectoryWriter, TrajectoryWriterRegistry

__all__ = [
    "StateRecord",
    "TrajectoryRecord",
    "StateTrajectoryRecord",
    "SpacesRecord",
    "StructuredSpacesRecord",
    "SpacesTrajectoryRecord",
    "TrajectoryWriter",
    "TrajectoryWriterRegistry",
    "TrajectoryWriterFile",
    "TrajectoryLoadError",
    "TrajectoryMemoryError",
    "TrajectoryDataError",
    "TRAJECTORY_FILE_PATTERNS",
    "episode_id_of",
    "is_trajectory_file",
    "load_trajectory",
    "SimpleTrajectoryRecordingSetup",
]
