"""State-action critics Q for structured envs: Q(s, ·) for discrete heads, Q(s, a) for the others."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Optional, Union

import torch
from gymnasium import spaces
from maze.env.core.actor import ActorID, StepKeyType
from maze.env.errors import ConfigurationError
from maze.perception.agent.torch_model import TorchModel, network_name
from maze.perception.agent.torch_policy import observation_to_torch
from maze.perception.agent.torch_state_critic import critic_network
from maze.perception.perception_utils import Q_VALUE_KEY, state_action_critic_shapes
from torch import nn

__all__ = ["TorchSharedStateActionCritic", "TorchStateActionCritic", "TorchStepStateActionCritic"]


class TorchStateActionCritic(TorchModel):
    """Base of the torch state-action critics.

    Args:
        networks: Q networks by key (a list gives keys 0, 1, ...); each maps observations plus
            non-discrete actions to the outputs of :func:`state_action_critic_shapes`.
        action_spaces_dict: Sub-step key -> dict action space.
        device: Where the networks run.
    """

    def __init__(
        self,
        networks: Union[Mapping[Any, nn.Module], Sequence[nn.Module]],
        action_spaces_dict: Mapping[StepKeyType, spaces.Dict],
        device: Union[str, torch.device] = "cpu",
    ) -> None:
        super().__init__(device)
        items = networks.items() if isinstance(networks, Mapping) else enumerate(networks)
        self.networks: dict[Any, nn.Module] = {key: network.to(self.device) for key, network in items}
        if not self.networks:
            raise ConfigurationError(f"{type(self).__name__} needs at least one Q network")
        self.action_spaces_dict = dict(action_spaces_dict)

    def named_networks(self) -> dict[str, nn.Module]:
        """``critic_<key>`` -> network."""
        return {network_name("critic", key): network for key, network in self.networks.items()}

    @property
    def num_critics(self) -> int:
        """The number of Q networks."""
        return len(self.networks)

    def _network(self, actor_id: Optional[ActorID]) -> nn.Module:
        return critic_network(self.networks, actor_id, type(self).__name__)

    def predict_q_values(
        self,
        observation: Mapping[str, Any],
        actions: Optional[Mapping[str, Any]] = None,
        actor_id: Optional[ActorID] = None,
    ) -> dict[str, torch.Tensor]:
        """The Q values of one sub-step.

        Args:
            observation: Observation dict ``[*batch, *shape]`` (numpy or tensors).
            actions: The actions of the non-discrete heads ``[*batch, *action_shape]``; needed
                when the sub-step has such heads.
            actor_id: The actor (selects the network; None with a single network).

        Returns:
            ``<head>_q_values`` ``[*batch, n]`` per discrete head and ``q_value`` ``[*batch]``
            when there are non-discrete heads.

        Raises:
            KeyError: If an action the network needs is missing.
        """
        step_key = actor_id[0] if actor_id is not None else next(iter(self.action_spaces_dict))
        action_inputs, _ = state_action_critic_shapes(self.action_spaces_dict[step_key])
        missing = [head for head in action_inputs if actions is None or head not in actions]
        if missing:
            raise KeyError(f"{type(self).__name__}: Q(s, a) needs the actions of the heads {missing}")
        inputs = {**observation, **{head: actions[head] for head in action_inputs}} if action_inputs else observation
        output = dict(self._network(actor_id)(observation_to_torch(inputs, self.device)))
        if Q_VALUE_KEY in output:
            output[Q_VALUE_KEY] = output[Q_VALUE_KEY].squeeze(-1)
        return output


class TorchStepStateActionCritic(TorchStateActionCritic):
    """One Q network per sub-step key."""


class TorchSharedStateActionCritic(TorchStateActionCritic):
    """One Q network shared by all sub-steps and actors."""

    def _network(self, actor_id: Optional[ActorID]) -> nn.Module:
        return next(iter(self.networks.values()))
