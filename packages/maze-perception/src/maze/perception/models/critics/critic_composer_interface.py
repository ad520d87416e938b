"""Interface of critic composers: they build the critic networks of a model."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Union

import torch
from maze.env.errors import ConfigurationError
from maze.perception.agent.torch_model import TorchModel
from torch import nn

__all__ = ["CriticComposerInterface", "missing_networks_error"]


class CriticComposerInterface(ABC):
    """Builds the critic networks of a model and the torch critic that runs them."""

    @property
    @abstractmethod
    def networks(self) -> dict[Any, nn.Module]:
        """The critic networks by key."""

    @abstractmethod
    def torch_critic(self, device: Union[str, torch.device] = "cpu") -> TorchModel:
        """The torch critic (state or state-action) over these networks."""


def missing_networks_error(composer_name: str) -> ConfigurationError:
    """The error for a critic composer built without networks, naming the config choices that fit.

    The template critics (``critic=template_*``) get their networks from a template model's
    builder; with any other model (e.g. the default ``model=flatten_concat``) they have none.
    """
    return ConfigurationError(
        f"{composer_name} has no networks. The template critics (critic=template_state, template_shared, "
        "template_state_action) are built by a template model (e.g. model=vector_obs); with another model, such as "
        "the default model=flatten_concat, use critic=flatten_concat_state (or flatten_concat_shared, "
        "flatten_concat_state_action), leave critic out (A2C/PPO/IMPALA then pick one), or give critic.networks"
    )
