"""Trajectory datasets: recorded episodes as in-memory observation/action items (no torch).

Load the files a rollout recorded with :class:`InMemoryDataset`, transform episodes with a
:class:`TrajectoryProcessor` while they load, and split the items with
:meth:`InMemoryDataset.train_validation_split` or :func:`random_split`. Training code
wraps a dataset for torch with ``maze.train.datasets``.
"""

from maze.rollout.datasets.conversion import TrajectoryConversionError, to_spaces_trajectory
from maze.rollout.datasets.in_memory_dataset import DatasetSubset, InMemoryDataset, random_split
from maze.rollout.datasets.loading import find_trajectory_files, resolve_data_paths
from maze.rollout.datasets.trajectory_processor import (
    DeadEndClippingTrajectoryProcessor,
    IdentityTrajectoryProcessor,
    IdentityWithNextObservationTrajectoryProcessor,
    TrajectoryProcessor,
)

__all__ = [
    "InMemoryDataset",
    "DatasetSubset",
    "random_split",
    "find_trajectory_files",
    "resolve_data_paths",
    "to_spaces_trajectory",
    "TrajectoryConversionError",
    "TrajectoryProcessor",
    "IdentityTrajectoryProcessor",
    "IdentityWithNextObservationTrajectoryProcessor",
    "DeadEndClippingTrajectoryProcessor",
]
