"""What a policy computes for trainers: logits, distributions, entropies and shared embeddings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

import torch
from maze.distributions import DictProbabilityDistribution
from maze.env.core.actor import ActorID

__all__ = ["PolicyOutput", "PolicySubStepOutput"]


@dataclass
class PolicySubStepOutput:
    """The policy output of one sub-step (one actor), batched.

    Attributes:
        action_logits: Action head -> logits ``[*batch, *logits_shape]``.
        prob_dist: The joint action distribution (batch shape ``[*batch]``).
        embedding_logits: Extra network outputs (shared embeddings for the critic), key ->
            ``[*batch, *shape]``; empty when the network exposes none.
        actor_id: The actor the output belongs to (None for a flat policy called without one).
    """

    action_logits: dict[str, torch.Tensor]
    prob_dist: DictProbabilityDistribution
    embedding_logits: dict[str, torch.Tensor] = field(default_factory=dict)
    actor_id: Optional[ActorID] = None

    @property
    def entropy(self) -> torch.Tensor:
        """The entropy of the joint action distribution, ``[*batch]``."""
        return self.prob_dist.entropy()

    def log_prob(self, actions: Mapping[str, Any]) -> torch.Tensor:
        """The joint log-probability of ``actions`` (head -> ``[*batch, *action_shape]``), ``[*batch]``."""
        return self.prob_dist.log_prob(actions)


@dataclass
class PolicyOutput:
    """The policy outputs of all sub-steps of one (flat) env step, in acting order.

    Attributes:
        substep_outputs: One :class:`PolicySubStepOutput` per sub-step.
    """

    substep_outputs: list[PolicySubStepOutput] = field(default_factory=list)

    def append(self, output: PolicySubStepOutput) -> None:
        """Adds the output of the next sub-step."""
        self.substep_outputs.append(output)

    def __len__(self) -> int:
        return len(self.substep_outputs)

    def __iter__(self) -> Any:
        return iter(self.substep_outputs)

    def __getitem__(self, index: int) -> PolicySubStepOutput:
        return self.substep_outputs[index]

    @property
    def actor_ids(self) -> list[Optional[ActorID]]:
        """The actor of each sub-step."""
        return [output.actor_id for output in self.substep_outputs]

    @property
    def action_logits(self) -> list[dict[str, torch.Tensor]]:
        """The action logits of each sub-step."""
        return [output.action_logits for output in self.substep_outputs]

    @property
    def prob_dist(self) -> list[DictProbabilityDistribution]:
        """The action distribution of each sub-step."""
        return [output.prob_dist for output in self.substep_outputs]

    @property
    def entropies(self) -> list[torch.Tensor]:
        """The entropy of each sub-step, each ``[*batch]``."""
        return [output.entropy for output in self.substep_outputs]

    @property
    def embedding_logits(self) -> list[dict[str, torch.Tensor]]:
        """The shared embeddings of each sub-step."""
        return [output.embedding_logits for output in self.substep_outputs]

    def log_probs(self, actions: list[Mapping[str, Any]]) -> list[torch.Tensor]:
        """The log-probability of each sub-step's actions, each ``[*batch]``."""
        return [output.log_prob(action) for output, action in zip(self.substep_outputs, actions, strict=True)]
