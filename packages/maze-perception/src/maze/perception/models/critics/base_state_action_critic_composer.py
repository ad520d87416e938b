"""Base of the state-action (Q) critic composers."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, Optional, Union

import torch
from gymnasium import spaces
from maze.env.core.actor import StepKeyType
from maze.env.errors import ConfigurationError
from maze.env.utils.factory import ConfigType
from maze.perception.agent.torch_model import network_name
from maze.perception.agent.torch_state_action_critic import TorchStateActionCritic
from maze.perception.models.critics.critic_composer_interface import CriticComposerInterface, missing_networks_error
from maze.perception.models.network_factory import dry_run_output_shapes, instantiate_networks
from maze.perception.perception_utils import observation_spaces_to_in_shapes, state_action_critic_shapes
from torch import nn

__all__ = ["BaseStateActionCriticComposer"]


class BaseStateActionCriticComposer(CriticComposerInterface):
    """Builds Q networks, each constructed with ``obs_shapes`` and ``output_shapes``.

    ``obs_shapes`` holds the observations plus the non-discrete action heads (network
    inputs); ``output_shapes`` holds ``<head>_q_values`` ``(n,)`` per discrete head and
    ``q_value`` ``(1,)`` when there are action inputs (see
    :func:`~maze.perception.perception_utils.state_action_critic_shapes`).

    Args:
        observation_spaces_dict: Sub-step key -> dict observation space.
        action_spaces_dict: Sub-step key -> dict action space.
        agent_counts_dict: Sub-step key -> number of agents.
        networks: Network configs (``_target_``), classes or factories: one for all critics or one per critic.
    """

    torch_critic_class: type[TorchStateActionCritic] = TorchStateActionCritic

    def __init__(
        self,
        observation_spaces_dict: Mapping[StepKeyType, spaces.Dict],
        action_spaces_dict: Mapping[StepKeyType, spaces.Dict],
        agent_counts_dict: Optional[Mapping[StepKeyType, int]],
        networks: Optional[Sequence[ConfigType]] = None,
    ) -> None:
        self.observation_spaces_dict = dict(observation_spaces_dict)
        self.action_spaces_dict = dict(action_spaces_dict)
        self.agent_counts_dict = {key: 1 for key in self.action_spaces_dict} | dict(agent_counts_dict or {})
        if not networks:
            raise missing_networks_error(type(self).__name__)
        observations, actions = self._critic_spaces()
        self.shapes: dict[Any, dict[str, Any]] = {}
        for key in observations:
            action_inputs, outputs = state_action_critic_shapes(actions[key])
            obs_shapes = observation_spaces_to_in_shapes({key: observations[key]})[key]
            self.shapes[key] = {"obs_shapes": {**obs_shapes, **action_inputs}, "output_shapes": outputs}
        self._networks = instantiate_networks(
            networks, {key: [key] for key in self.shapes}, lambda key: dict(self.shapes[key]), type(self).__name__
        )
        for key, network in self._networks.items():
            produced = dry_run_output_shapes(network, self.shapes[key]["obs_shapes"])
            missing = {
                name: shape for name, shape in self.shapes[key]["output_shapes"].items() if produced.get(name) != shape
            }
            if missing:
                raise ConfigurationError(
                    f"Q network {network_name('critic', key)!r} ({type(network).__name__}) must return {missing}, "
                    f"got {produced}"
                )

    @abstractmethod
    def _critic_spaces(self) -> tuple[dict[Any, spaces.Dict], dict[Any, spaces.Dict]]:
        """Critic key -> observation space and action space its network covers."""

    @property
    def networks(self) -> dict[Any, nn.Module]:
        """The Q networks by critic key."""
        return self._networks

    def torch_critic(self, device: Union[str, torch.device] = "cpu") -> TorchStateActionCritic:
        """The torch state-action critic over these networks."""
        return self.torch_critic_class(self.networks, self.action_spaces_dict, device, self.observation_spaces_dict)
