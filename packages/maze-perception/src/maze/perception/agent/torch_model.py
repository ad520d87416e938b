"""Base class of all torch models (policies, critics, actor-critics): a set of named networks."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from typing import Any, Union

import torch
from maze.env.errors import ConfigurationError
from maze.perception.perception_utils import resolve_device
from torch import nn

__all__ = ["TorchModel", "network_name"]


def network_name(prefix: str, key: Any) -> str:
    """The state-dict name of a network: ``policy_0``, ``critic_1``, ``policy_0_1`` for ``ActorID(0, 1)``."""
    if isinstance(key, tuple):
        return f"{prefix}_{key[0]}_{key[1]}"
    return f"{prefix}_{key}"


class TorchModel(ABC):
    """A model made of named torch networks, with the usual ``nn.Module``-like controls.

    The state dict maps each network's name (e.g. ``policy_0``) to that network's own
    state dict, so it holds tensors only and loads with ``torch.load(weights_only=True)``.

    Args:
        device: Where the networks live (``"cuda"`` without CUDA falls back to the CPU with a warning).
    """

    def __init__(self, device: Union[str, torch.device]) -> None:
        self._device = resolve_device(device)

    @abstractmethod
    def named_networks(self) -> dict[str, nn.Module]:
        """State-dict name -> network, for all networks of the model."""

    @property
    def device(self) -> torch.device:
        """The device the networks live on."""
        return self._device

    def parameters(self) -> list[nn.Parameter]:
        """All trainable parameters (each once, also where networks share modules)."""
        unique: dict[int, nn.Parameter] = {}
        for network in self.named_networks().values():
            for parameter in network.parameters():
                unique.setdefault(id(parameter), parameter)
        return list(unique.values())

    def modules(self) -> Iterator[nn.Module]:
        """The networks of the model."""
        return iter(self.named_networks().values())

    def state_dict(self) -> dict[str, dict[str, torch.Tensor]]:
        """Network name -> that network's state dict (tensors only)."""
        return {name: network.state_dict() for name, network in self.named_networks().items()}

    def load_state_dict(self, state_dict: Mapping[str, Mapping[str, torch.Tensor]]) -> None:
        """Loads the networks' parameters; entries of other networks (e.g. a critic's) are ignored.

        Raises:
            ConfigurationError: If a network is missing from ``state_dict``, or a parameter is
                missing or has another shape (naming the network, parameter and both shapes).
        """
        for name, network in self.named_networks().items():
            if name not in state_dict:
                raise ConfigurationError(
                    f"the checkpoint has no parameters for network {name!r}; it holds {sorted(state_dict)}. Was it "
                    "saved from a model with the same policies/critics?"
                )
            _check_parameters(name, network.state_dict(), state_dict[name])
            network.load_state_dict(state_dict[name])

    def train(self) -> None:
        """Puts all networks into training mode."""
        for network in self.named_networks().values():
            network.train()

    def eval(self) -> None:
        """Puts all networks into evaluation mode."""
        for network in self.named_networks().values():
            network.eval()

    def to(self, device: Union[str, torch.device]) -> TorchModel:
        """Moves all networks to ``device`` (with the CPU fallback of :func:`resolve_device`) and returns self."""
        self._device = resolve_device(device)
        for network in self.named_networks().values():
            network.to(self._device)
        return self


def _check_parameters(name: str, expected: Mapping[str, torch.Tensor], loaded: Mapping[str, torch.Tensor]) -> None:
    missing = [key for key in expected if key not in loaded]
    unexpected = [key for key in loaded if key not in expected]
    if missing or unexpected:
        raise ConfigurationError(
            f"checkpoint parameters of network {name!r} do not fit the model: missing {missing}, unexpected "
            f"{unexpected}. The checkpoint was saved from another architecture"
        )
    for key, tensor in expected.items():
        if tuple(loaded[key].shape) != tuple(tensor.shape):
            raise ConfigurationError(
                f"checkpoint parameter {name}.{key} has shape {list(loaded[key].shape)}, but the model expects "
                f"{list(tensor.shape)}: the checkpoint was trained for other observation/action spaces or another "
                "model config"
            )
