"""Inputs and outputs of state critics, per sub-step and per env step."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Iterator, Optional

import torch
from maze.env.core.actor import ActorID
from maze.env.trajectory_recording.spaces_records import StructuredSpacesRecord
from maze.perception.agent.policy_output import PolicyOutput

__all__ = ["StateCriticInput", "StateCriticOutput", "StateCriticStepInput", "StateCriticStepOutput"]


@dataclass
class StateCriticStepInput:
    """The critic input of one sub-step.

    Attributes:
        tensor_dict: Observation tensors ``[*batch, *shape]`` plus the policy's shared embeddings.
        actor_id: The actor of the sub-step.
    """

    tensor_dict: dict[str, torch.Tensor]
    actor_id: Optional[ActorID]


@dataclass
class StateCriticInput:
    """The critic inputs of all sub-steps of one env step."""

    substep_inputs: list[StateCriticStepInput] = field(default_factory=list)

    @classmethod
    def build(
        cls,
        observations: list[Mapping[str, torch.Tensor]],
        actor_ids: list[Optional[ActorID]],
        policy_output: Optional[PolicyOutput] = None,
    ) -> StateCriticInput:
        """Joins each sub-step's observation with that sub-step's shared embeddings (if any).

        Args:
            observations: One observation tensor dict per sub-step.
            actor_ids: The actor of each sub-step.
            policy_output: The policy output of the same sub-steps, whose ``embedding_logits``
                (the policy's extra outputs) the critic consumes.
        """
        embeddings = policy_output.embedding_logits if policy_output is not None else [{}] * len(observations)
        return cls(
            [
                StateCriticStepInput({**observation, **embedding}, actor_id)
                for observation, embedding, actor_id in zip(observations, embeddings, actor_ids, strict=True)
            ]
        )

    @classmethod
    def from_record(
        cls, record: StructuredSpacesRecord, policy_output: Optional[PolicyOutput] = None
    ) -> StateCriticInput:
        """The critic input for a structured record whose observations are tensors."""
        return cls.build(record.observations, record.actor_ids, policy_output)

    def __iter__(self) -> Iterator[StateCriticStepInput]:
        return iter(self.substep_inputs)

    def __len__(self) -> int:
        return len(self.substep_inputs)


@dataclass
class StateCriticStepOutput:
    """The value of one sub-step.

    Attributes:
        values: ``[*batch]`` with gradients.
        detached_values: ``values.detach()``.
        actor_id: The actor of the sub-step.
    """

    values: torch.Tensor
    detached_values: torch.Tensor
    actor_id: Optional[ActorID]


@dataclass
class StateCriticOutput:
    """The values of all sub-steps of one env step."""

    substep_outputs: list[StateCriticStepOutput] = field(default_factory=list)

    def append(self, output: StateCriticStepOutput) -> None:
        """Adds the output of the next sub-step."""
        self.substep_outputs.append(output)

    def __iter__(self) -> Iterator[StateCriticStepOutput]:
        return iter(self.substep_outputs)

    def __len__(self) -> int:
        return len(self.substep_outputs)

    def __getitem__(self, index: int) -> StateCriticStepOutput:
        return self.substep_outputs[index]

    @property
    def values(self) -> list[torch.Tensor]:
        """The values of each sub-step, each ``[*batch]``."""
        return [output.values for output in self.substep_outputs]

    @property
    def detached_values(self) -> list[torch.Tensor]:
        """The detached values of each sub-step."""
        return [output.detached_values for output in self.substep_outputs]

    @property
    def actor_ids(self) -> list[Any]:
        """The actor of each sub-step."""
        return [output.actor_id for output in self.substep_outputs]
