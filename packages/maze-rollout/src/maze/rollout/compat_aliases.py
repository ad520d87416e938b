"""maze-rollout's aliases for old ``_target_`` paths (see :mod:`maze.env.utils.compat_aliases`).

Registered under the entry point group ``maze.compat_aliases``; imports nothing.
"""

from __future__ import annotations

__all__ = ["ALIASES"]

_PROCESSORS = "maze.core.trajectory_recording.datasets.trajectory_processor"

ALIASES: dict[str, str] = {
    "maze.core.rollout.parallel_rollout_runner.ParallelRolloutRunner": "maze.rollout.ParallelRolloutRunner",
    "maze.core.rollout.sequential_rollout_runner.SequentialRolloutRunner": "maze.rollout.SequentialRolloutRunner",
    "maze.core.trajectory_recording.datasets.in_memory_dataset.InMemoryDataset": "maze.rollout.datasets.InMemoryDataset",
    **{
        f"{_PROCESSORS}.{name}": f"maze.rollout.datasets.{name}"
        for name in (
            "IdentityTrajectoryProcessor",
            "IdentityWithNextObservationTrajectoryProcessor",
            "DeadEndClippingTrajectoryProcessor",
        )
    },
}
"""Old path -> the path of maze-rollout's class."""
