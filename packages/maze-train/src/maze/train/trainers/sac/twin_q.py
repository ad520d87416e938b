"""TwinQ: two state-action critics evaluated together, and their target copies."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Optional

import torch
from maze.env.core.actor import ActorID
from maze.perception.agent.torch_state_action_critic import TorchStateActionCritic, q_values_of
from maze.perception.blocks.base import call_module

__all__ = ["TwinQ"]


class TwinQ:
    """Two Q critics of the same architecture (independent initializations), each with a network per sub-step.

    Args:
        first: The first critic (the one saved with the policy in ``state_dict.pt``).
        second: The second critic.
    """

    def __init__(self, first: TorchStateActionCritic, second: TorchStateActionCritic) -> None:
        self.critics = (first, second)
        self.parameters: list[torch.nn.Parameter] = [*first.parameters(), *second.parameters()]

    def q_values(
        self,
        observation: Mapping[str, torch.Tensor],
        actions: Optional[Mapping[str, torch.Tensor]] = None,
        actor_id: Optional[ActorID] = None,
    ) -> tuple[dict[str, torch.Tensor], dict[str, torch.Tensor]]:
        """The float32 outputs of both critics (``q_value`` ``[B]`` and/or ``<head>_q_values`` ``[B, n]``).

        Args:
            observation: The sub-step's observations ``[B, *shape]``.
            actions: Its continuous actions ``[B, *shape]`` (None for discrete sub-steps).
            actor_id: Selects the sub-step (None: the only one of a flat env).
        """
        key, inputs, outputs = self.critics[0].q_network_inputs(observation, actions, actor_id)  # same for both
        return tuple(
            {
                name: value.float()
                for name, value in q_values_of(call_module(critic.networks[key], inputs), outputs).items()
            }
            for critic in self.critics
        )

    def copy(self) -> TwinQ:
        """A deep copy (the target networks), with gradients switched off."""
        twin = TwinQ(*(copy.deepcopy(critic) for critic in self.critics))
        for parameter in twin.parameters:
            parameter.requires_grad_(False)
        return twin

    def requires_grad_(self, flag: bool) -> None:
        """Switches gradients of all parameters on or off."""
        for parameter in self.parameters:
            parameter.requires_grad_(flag)

    def state_dict(self) -> dict[str, Any]:
        """Both critics' networks."""
        return {"q1": self.critics[0].state_dict(), "q2": self.critics[1].state_dict()}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Loads what :meth:`state_dict` returned."""
        self.critics[0].load_state_dict(state["q1"])
        self.critics[1].load_state_dict(state["q2"])
