"""TorchActorCritic: a policy and a critic trained together (A2C, PPO, IMPALA, SAC)."""

from __future__ import annotations

from typing import Union

import torch
from maze.env.trajectory_recording.spaces_records import StructuredSpacesRecord
from maze.perception.agent.policy_output import PolicyOutput
from maze.perception.agent.state_critic_io import StateCriticInput, StateCriticOutput
from maze.perception.agent.torch_model import TorchModel
from maze.perception.agent.torch_policy import TorchPolicy
from maze.perception.agent.torch_state_action_critic import TorchStateActionCritic
from maze.perception.agent.torch_state_critic import TorchStateCritic
from torch import nn

__all__ = ["TorchActorCritic"]


class TorchActorCritic(TorchModel):
    """Holds a :class:`TorchPolicy` and a state or state-action critic as one model.

    Its state dict holds the policy's networks (``policy_*``) and the critic's
    (``critic_*``); a policy alone can be loaded from it.

    Args:
        policy: The policy.
        critic: A :class:`TorchStateCritic` or :class:`TorchStateActionCritic`.
        device: Where both live (both are moved there).
    """

    def __init__(
        self,
        policy: TorchPolicy,
        critic: Union[TorchStateCritic, TorchStateActionCritic],
        device: Union[str, torch.device] = "cpu",
    ) -> None:
        super().__init__(device)
        self.policy = policy
        self.critic = critic
        self.to(self.device)

    def named_networks(self) -> dict[str, nn.Module]:
        """The policy's and the critic's networks."""
        return {**self.policy.named_networks(), **self.critic.named_networks()}

    def to(self, device: Union[str, torch.device]) -> TorchActorCritic:
        """Moves policy and critic to ``device`` and returns self."""
        super().to(device)
        self.policy.to(self.device)
        self.critic.to(self.device)
        return self

    def compute_actor_critic_output(
        self, record: StructuredSpacesRecord, temperature: float = 1.0
    ) -> tuple[PolicyOutput, StateCriticOutput]:
        """Policy output and state values (with gradients) for a batched record with tensor observations.

        The critic sees each sub-step's observation plus the policy's shared embeddings.
        """
        policy_output = self.policy.compute_policy_output(record, temperature)
        critic_input = StateCriticInput.from_record(record, policy_output)
        return policy_output, self.critic.predict_values(critic_input)
