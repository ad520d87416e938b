"""Base of the state critic composers: builds value networks from per-network observation shapes."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, Optional

from gymnasium import spaces
from maze.env.core.actor import StepKeyType
from maze.env.errors import ConfigurationError
from maze.env.utils.factory import ConfigType
from maze.perception.agent.torch_model import network_name
from maze.perception.models.critics.critic_composer_interface import CriticComposerInterface, missing_networks_error
from maze.perception.models.network_factory import dry_run_output_shapes, instantiate_networks
from maze.perception.perception_utils import observation_spaces_to_in_shapes
from torch import nn

__all__ = ["BaseStateCriticComposer"]


class BaseStateCriticComposer(CriticComposerInterface):
    """Builds state value networks; each is constructed with ``obs_shapes`` and returns ``{'value': [B, 1]}``.

    The observation spaces include the policy's shared embeddings (as Box entries) when
    the model shares them.

    Args:
        observation_spaces_dict: Sub-step key -> dict observation space.
        agent_counts_dict: Sub-step key -> number of agents.
        networks: Network configs (``_target_``), classes or factories: one for all critics
            or one per critic.
    """

    def __init__(
        self,
        observation_spaces_dict: Mapping[StepKeyType, spaces.Dict],
        agent_counts_dict: Optional[Mapping[StepKeyType, int]],
        networks: Optional[Sequence[ConfigType]] = None,
    ) -> None:
        self.observation_spaces_dict = dict(observation_spaces_dict)
        self.agent_counts_dict = {key: 1 for key in self.observation_spaces_dict} | dict(agent_counts_dict or {})
        if not networks:
            raise missing_networks_error(type(self).__name__)
        obs_shapes = self._critic_obs_shapes()
        self._networks = instantiate_networks(
            networks,
            {key: [key] for key in obs_shapes},
            lambda key: {"obs_shapes": obs_shapes[key]},
            type(self).__name__,
        )
        self.value_ranks: dict[Any, int] = {}
        """Critic key -> rank of the network's value per sample (1: ``[B, 1]``, 0: ``[B]``)."""
        for key, network in self._networks.items():
            outputs = dry_run_output_shapes(network, obs_shapes[key])
            if outputs.get("value") not in ((1,), ()):
                raise ConfigurationError(
                    f"critic network {network_name('critic', key)!r} ({type(network).__name__}) must return "
                    f"{{'value': [batch, 1]}}, got outputs {outputs}"
                )
            self.value_ranks[key] = len(outputs["value"])

    def _critic_obs_shapes(self) -> dict[Any, dict[str, tuple[int, ...]]]:
        """Critic key -> the observation shapes its network gets (default: one critic per sub-step)."""
        return observation_spaces_to_in_shapes(self.observation_spaces_dict)

    @property
    def networks(self) -> dict[Any, nn.Module]:
        """The value networks by critic key."""
        return self._networks

    @abstractmethod
    def torch_critic(self, device: Any = "cpu") -> Any:
        """The torch state critic over these networks."""
