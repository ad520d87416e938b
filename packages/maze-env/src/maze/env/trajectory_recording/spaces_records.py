"""Trajectory records of raw observations and actions, sub-step by sub-step."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Optional

from maze.env.core.actor import ActorID, StepKeyType
from maze.env.trajectory_recording.records import TrajectoryRecord
from maze.env.utils.allow_list import trajectory_data

__all__ = ["SpacesRecord", "StructuredSpacesRecord", "SpacesTrajectoryRecord"]


@trajectory_data
@dataclass
class SpacesRecord:
    """What one actor saw and did in one sub-step.

    Attributes:
        actor_id: The actor that acted.
        observation: The observation dict it acted on.
        action: The action dict it took.
        reward: The reward of the sub-step.
        terminated: The episode ended in a terminal state with this sub-step.
        truncated: The episode was cut off with this sub-step.
        info: The info dict of the sub-step.
        logits: The policy's logits per action key, when recorded.
        value: The critic's value estimate, when recorded.
        next_observation: The observation that followed, when recorded.
    """

    actor_id: ActorID
    observation: dict[str, Any]
    action: dict[str, Any]
    reward: Any
    terminated: bool = False
    truncated: bool = False
    info: Optional[dict[str, Any]] = None
    logits: Optional[dict[str, Any]] = None
    value: Any = None
    next_observation: Optional[dict[str, Any]] = None

    @property
    def done(self) -> bool:
        """The episode ended with this sub-step (terminated or truncated)."""
        return self.terminated or self.truncated


@trajectory_data
@dataclass
class StructuredSpacesRecord:
    """One env step: the :class:`SpacesRecord` of every sub-step, in acting order.

    The list properties hold one entry per sub-step; the flags are those of the last
    sub-step (the one that ended the env step).

    Attributes:
        substep_records: The sub-step records.
    """

    substep_records: list[SpacesRecord] = field(default_factory=list)

    def append(self, substep_record: SpacesRecord) -> None:
        """Adds the record of the next sub-step."""
        self.substep_records.append(substep_record)

    def __len__(self) -> int:
        return len(self.substep_records)

    def __iter__(self) -> Iterator[SpacesRecord]:
        return iter(self.substep_records)

    @property
    def actor_ids(self) -> list[ActorID]:
        """The actor of each sub-step."""
        return [record.actor_id for record in self.substep_records]

    @property
    def observations(self) -> list[dict[str, Any]]:
        """The observation of each sub-step."""
        return [record.observation for record in self.substep_records]

    @property
    def actions(self) -> list[dict[str, Any]]:
        """The action of each sub-step."""
        return [record.action for record in self.substep_records]

    @property
    def rewards(self) -> list[Any]:
        """The reward of each sub-step."""
        return [record.reward for record in self.substep_records]

    @property
    def logits(self) -> list[Optional[dict[str, Any]]]:
        """The logits of each sub-step (None where not recorded)."""
        return [record.logits for record in self.substep_records]

    @property
    def values(self) -> list[Any]:
        """The value estimate of each sub-step (None where not recorded)."""
        return [record.value for record in self.substep_records]

    @property
    def next_observations(self) -> list[Optional[dict[str, Any]]]:
        """The next observation of each sub-step (None where not recorded)."""
        return [record.next_observation for record in self.substep_records]

    @property
    def terminated(self) -> bool:
        """The last sub-step's ``terminated`` (False for an empty record)."""
        return bool(self.substep_records) and self.substep_records[-1].terminated

    @property
    def truncated(self) -> bool:
        """The last sub-step's ``truncated`` (False for an empty record)."""
        return bool(self.substep_records) and self.substep_records[-1].truncated

    @property
    def done(self) -> bool:
        """The env step ended the episode."""
        return self.terminated or self.truncated

    @property
    def observation_dict(self) -> dict[StepKeyType, dict[str, Any]]:
        """The observations by sub-step key (for envs with one agent per sub-step key)."""
        return {key: record.observation for key, record in self._records_by_step_key().items()}

    @property
    def action_dict(self) -> dict[StepKeyType, dict[str, Any]]:
        """The actions by sub-step key (for envs with one agent per sub-step key)."""
        return {key: record.action for key, record in self._records_by_step_key().items()}

    def _records_by_step_key(self) -> dict[StepKeyType, SpacesRecord]:
        by_key: dict[StepKeyType, SpacesRecord] = {}
        for record in self.substep_records:
            key = record.actor_id.step_key
            if key in by_key:
                raise ValueError(
                    f"sub-step key {key!r} occurs more than once in this env step (actors {self.actor_ids}); "
                    "records of multi-agent steps cannot be keyed by sub-step, use the list properties instead"
                )
            by_key[key] = record
        return by_key


@trajectory_data
@dataclass
class SpacesTrajectoryRecord(TrajectoryRecord[StructuredSpacesRecord]):
    """An episode of :class:`StructuredSpacesRecord` s (one per env step)."""
