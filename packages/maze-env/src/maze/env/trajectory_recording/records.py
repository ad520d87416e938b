"""Trajectory records of MazeStates and MazeActions: what the recording wrapper stores."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, Optional, TypeVar

from maze.env.core.rendering import Renderer
from maze.env.log_events.step_event_log import StepEventLog
from maze.env.utils.allow_list import trajectory_data

__all__ = ["StateRecord", "TrajectoryRecord", "StateTrajectoryRecord"]

StepRecordType = TypeVar("StepRecordType")


@trajectory_data
@dataclass
class StateRecord:
    """One recorded ``step()``: the state acted in, the action and what followed.

    Attributes:
        maze_state: The MazeState the action was taken in (before the step).
        maze_action: The MazeAction executed.
        step_event_log: The events fired during the step, with the step's env time.
        reward: The reward of the step (a float, or an array for multi-actor rewards).
        terminated: The episode ended in a terminal state with this step.
        truncated: The episode was cut off (e.g. by a time limit) with this step.
        info: The info dict ``step()`` returned.
        serializable_components: The env's serializable components after the step
            (``SerializableEnvMixin.get_serializable_components``), if it has any.
    """

    maze_state: Any
    maze_action: Any
    step_event_log: Optional[StepEventLog]
    reward: Any
    terminated: bool
    truncated: bool
    info: Optional[dict[str, Any]] = None
    serializable_components: Optional[dict[str, Any]] = None

    @property
    def done(self) -> bool:
        """The episode ended with this step (terminated or truncated)."""
        return self.terminated or self.truncated


@trajectory_data
@dataclass
class TrajectoryRecord(Generic[StepRecordType]):
    """The records of one episode, step by step.

    Attributes:
        id: Unique id of the episode (the recorded env's episode id, a UUID string).
        step_records: One record per step, in step order.
    """

    id: str
    step_records: list[StepRecordType] = field(default_factory=list)

    def append(self, step_record: StepRecordType) -> None:
        """Adds the record of the next step."""
        self.step_records.append(step_record)

    def __len__(self) -> int:
        return len(self.step_records)

    def __iter__(self) -> Iterator[StepRecordType]:
        return iter(self.step_records)


@trajectory_data
@dataclass
class StateTrajectoryRecord(TrajectoryRecord[StateRecord]):
    """An episode of :class:`StateRecord` s plus the renderer that can replay it.

    Attributes:
        renderer: The env's renderer (None when the env has none that can replay recorded
            states). Viewers draw step ``i`` with
            ``renderer.render(r.maze_state, r.maze_action, r.step_event_log)``.
    """

    renderer: Optional[Renderer] = None
