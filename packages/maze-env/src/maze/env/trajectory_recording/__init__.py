"""Trajectory records, writers and the recording setup.

Trajectory files are pickles: load only those you or your pipeline wrote (see
:mod:`maze.env.trajectory_recording.trajectory_files`).
"""

from maze.env.trajectory_recording.recording_setup import SimpleTrajectoryRecordingSetup
from maze.env.trajectory_recording.records import StateRecord, StateTrajectoryRecord, TrajectoryRecord
from maze.env.trajectory_recording.spaces_records import SpacesRecord, SpacesTrajectoryRecord, StructuredSpacesRecord
from maze.env.trajectory_recording.trajectory_files import TrajectoryLoadError, TrajectoryWriterFile, load_trajectory
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
    "load_trajectory",
    "SimpleTrajectoryRecordingSetup",
]
