"""Torch models: TorchPolicy, state and state-action critics, TorchActorCritic."""

from maze.perception.agent.policy_output import PolicyOutput, PolicySubStepOutput
from maze.perception.agent.state_critic_io import (
    StateCriticInput,
    StateCriticOutput,
    StateCriticStepInput,
    StateCriticStepOutput,
)
from maze.perception.agent.torch_actor_critic import TorchActorCritic
from maze.perception.agent.torch_model import TorchModel
from maze.perception.agent.torch_networks_model import TorchCriticModel, TorchNetworksModel
from maze.perception.agent.torch_policy import TorchPolicy
from maze.perception.agent.torch_state_action_critic import (
    TorchSharedStateActionCritic,
    TorchStateActionCritic,
    TorchStepStateActionCritic,
)
from maze.perception.agent.torch_state_critic import (
    TorchDeltaStateCritic,
    TorchSharedStateCritic,
    TorchStateCritic,
    TorchStepStateCritic,
)

__all__ = [
    "PolicyOutput",
    "PolicySubStepOutput",
    "StateCriticInput",
    "StateCriticOutput",
    "StateCriticStepInput",
    "StateCriticStepOutput",
    "TorchActorCritic",
    "TorchCriticModel",
    "TorchDeltaStateCritic",
    "TorchModel",
    "TorchNetworksModel",
    "TorchPolicy",
    "TorchSharedStateActionCritic",
    "TorchSharedStateCritic",
    "TorchStateActionCritic",
    "TorchStateCritic",
    "TorchStepStateActionCritic",
    "TorchStepStateCritic",
]
