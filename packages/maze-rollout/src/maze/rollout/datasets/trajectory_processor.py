"""Trajectory processors: per-episode transformations applied while a dataset loads.

A processor receives each episode as a :class:`SpacesTrajectoryRecord` (recorded
MazeStates are already converted to observations and actions) and returns the episode
the dataset keeps. Processors never modify their input record. They run inside the data
loading workers, so they must be picklable (cloudpickle: lambdas and closures are fine).
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod

from maze.env.core.actor import ActorID
from maze.env.trajectory_recording.spaces_records import SpacesRecord, SpacesTrajectoryRecord, StructuredSpacesRecord

__all__ = [
    "TrajectoryProcessor",
    "IdentityTrajectoryProcessor",
    "IdentityWithNextObservationTrajectoryProcessor",
    "DeadEndClippingTrajectoryProcessor",
]


class TrajectoryProcessor(ABC):
    """Transforms one episode before a dataset keeps it."""

    @abstractmethod
    def process(self, trajectory: SpacesTrajectoryRecord) -> SpacesTrajectoryRecord:
        """Returns the processed episode (a new record; ``trajectory`` stays unchanged)."""


class IdentityTrajectoryProcessor(TrajectoryProcessor):
    """Keeps every episode as it is (the default of datasets, e.g. for behavioural cloning)."""

    def process(self, trajectory: SpacesTrajectoryRecord) -> SpacesTrajectoryRecord:
        """Returns ``trajectory`` itself."""
        return trajectory


class IdentityWithNextObservationTrajectoryProcessor(TrajectoryProcessor):
    """Adds ``next_observation`` to every sub-step record (transitions for replay buffers, e.g. SACfD).

    The next observation of a record is the observation of the same actor's next record in
    the episode. Records that already carry a ``next_observation`` keep it. A record
    without a successor of its actor:

    * that ended the episode by termination keeps its own observation as a placeholder
      (value targets are cut at termination, so it is never used);
    * otherwise (truncated or unfinished episodes, other actors of the last env step) is
      dropped, because the observation that followed it was not recorded. Env steps left
      without sub-step records are dropped as well.
    """

    def process(self, trajectory: SpacesTrajectoryRecord) -> SpacesTrajectoryRecord:
        """Returns the episode with ``next_observation`` set on every kept record."""
        successors: dict[ActorID, SpacesRecord] = {}
        reversed_steps: list[StructuredSpacesRecord] = []
        for step in reversed(trajectory.step_records):
            kept: list[SpacesRecord] = []
            for record in reversed(step.substep_records):
                successor = successors.get(record.actor_id)
                successors[record.actor_id] = record
                if record.next_observation is not None:
                    kept.append(record)
                elif successor is not None:
                    kept.append(dataclasses.replace(record, next_observation=successor.observation))
                elif record.terminated:
                    kept.append(dataclasses.replace(record, next_observation=record.observation))
            if kept:
                reversed_steps.append(StructuredSpacesRecord(substep_records=kept[::-1]))
        return dataclasses.replace(trajectory, step_records=reversed_steps[::-1])


class DeadEndClippingTrajectoryProcessor(TrajectoryProcessor):
    """Drops the last ``clip_k`` env steps of episodes that ended by termination.

    Imitation learning should not copy the unrecoverable tail of an episode that ran into
    a dead end (e.g. a crash or an infeasible state). Every episode whose last env step is
    terminated (and not truncated) counts as one, so use this processor for envs where
    termination means failure. Truncated and unfinished episodes stay complete; an episode
    of at most ``clip_k`` steps becomes empty. A 10-step terminated episode with
    ``clip_k=3`` keeps its first 7 steps.

    Args:
        clip_k: Number of env steps to drop (0 keeps everything).

    Raises:
        ValueError: ``clip_k`` is negative.
    """

    def __init__(self, clip_k: int) -> None:
        if clip_k < 0:
            raise ValueError(f"DeadEndClippingTrajectoryProcessor needs clip_k >= 0, got {clip_k}")
        self.clip_k = int(clip_k)

    def process(self, trajectory: SpacesTrajectoryRecord) -> SpacesTrajectoryRecord:
        """Returns the episode without its last ``clip_k`` steps if it ended in a dead end."""
        steps = trajectory.step_records
        if self.clip_k == 0 or not steps or not steps[-1].terminated or steps[-1].truncated:
            return trajectory
        return dataclasses.replace(trajectory, step_records=steps[: max(len(steps) - self.clip_k, 0)])
