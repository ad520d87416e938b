"""Interface of critic composers: they build the critic networks of a model."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Union

import torch
from maze.perception.agent.torch_model import TorchModel
from torch import nn

__all__ = ["CriticComposerInterface"]


class CriticComposerInterface(ABC):
    """Builds the critic networks of a model and the torch critic that runs them."""

    @property
    @abstractmethod
    def networks(self) -> dict[Any, nn.Module]:
        """The critic networks by key."""

    @abstractmethod
    def torch_critic(self, device: Union[str, torch.device] = "cpu") -> TorchModel:
        """The torch critic (state or state-action) over these networks."""
