"""Bases of the torch models that hold one dict of networks: policies and critics."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Optional, Union

import torch
from gymnasium import spaces
from maze.env.core.actor import ActorID, StepKeyType
from maze.env.errors import ConfigurationError
from maze.perception.agent.torch_model import TorchModel, network_name
from maze.perception.perception_utils import discrete_observation_keys, observation_to_torch
from torch import nn

__all__ = ["CriticIdType", "NetworksType", "TorchCriticModel", "TorchNetworksModel", "critic_key"]

NetworksType = Union[Mapping[Any, nn.Module], Sequence[nn.Module]]
"""Networks by key (sub-step key, or ``ActorID`` for separate agent nets), or a list (keys 0, 1, ...)."""

CriticIdType = Union[ActorID, StepKeyType, None]
"""What selects a critic network: an ActorID, a sub-step key, or None when there is one network."""


class TorchNetworksModel(TorchModel):
    """A model whose networks are one dict; the network of key ``k`` is named ``<network_prefix>_<k>``.

    Args:
        networks: Networks by key, or a list (keys 0, 1, ...); they are moved to ``device``.
        device: Where the networks run.
        observation_spaces_dict: Sub-step key -> dict observation space; its ``Discrete`` keys
            get their trailing network input dim when observations are converted (integers
            ``[*batch]`` -> ``[*batch, 1]``). Without it observations are taken as they are.

    Raises:
        ConfigurationError: If there is no network.
    """

    network_prefix: str = "network"
    """The state-dict name prefix of the networks (``policy``, ``critic``)."""

    def __init__(
        self,
        networks: NetworksType,
        device: Union[str, torch.device],
        observation_spaces_dict: Optional[Mapping[StepKeyType, spaces.Dict]] = None,
    ) -> None:
        super().__init__(device)
        self.discrete_observation_keys = discrete_observation_keys(observation_spaces_dict or {})
        items = networks.items() if isinstance(networks, Mapping) else enumerate(networks)
        self.networks: dict[Any, nn.Module] = {key: network.to(self.device) for key, network in items}
        if not self.networks:
            raise ConfigurationError(f"{type(self).__name__} needs at least one {self.network_prefix} network")

    def named_networks(self) -> dict[str, nn.Module]:
        """``<network_prefix>_<key>`` -> network."""
        return {network_name(self.network_prefix, key): network for key, network in self.networks.items()}

    def _to_torch(self, observation: Mapping[str, Any]) -> dict[str, torch.Tensor]:
        """An observation dict as float32 tensors on the device, Discrete entries ``[*batch, 1]``."""
        return observation_to_torch(observation, self._device, self.discrete_observation_keys)


def critic_key(networks: Mapping[Any, nn.Module], critic_id: CriticIdType, owner: str) -> Any:
    """The network key of a critic id (the sub-step key of an ActorID; any key when there is one network).

    Raises:
        KeyError: Naming the owner, the id and the known critics.
    """
    if critic_id is None and len(networks) == 1:
        return next(iter(networks))
    key = critic_id[0] if isinstance(critic_id, tuple) else critic_id
    if key not in networks:
        raise KeyError(f"{owner} has no critic {critic_id!r}; critics: {list(networks)}")
    return key


class TorchCriticModel(TorchNetworksModel):
    """Base of the state and state-action critics: networks ``critic_<key>`` selected by critic id."""

    network_prefix = "critic"

    @property
    def num_critics(self) -> int:
        """The number of critic networks."""
        return len(self.networks)

    def _key(self, critic_id: CriticIdType) -> Any:
        """The key of the network that values ``critic_id``."""
        return critic_key(self.networks, critic_id, type(self).__name__)
