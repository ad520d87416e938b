"""TorchPolicyFactory: builds a run's policy from its model config in a worker process or on another node."""

from __future__ import annotations

from typing import Any

from maze.perception.agent.torch_policy import TorchPolicy
from maze.perception.models.base_model_composer import build_model_composer
from maze.perception.models.spaces_config import SpacesConfig

__all__ = ["TorchPolicyFactory"]


class TorchPolicyFactory:
    """Builds the training run's TorchPolicy from its model config and spaces (picklable for workers).

    Args:
        model_config: The ``model`` config.
        spaces_config: The env spaces.
    """

    def __init__(self, model_config: dict[str, Any], spaces_config: SpacesConfig) -> None:
        self.model_config = model_config
        self.spaces_config = spaces_config

    def __call__(self) -> TorchPolicy:
        """A new policy on the CPU (its initial parameters are replaced before every episode)."""
        return build_model_composer(self.model_config, self.spaces_config, with_critic=False).torch_policy("cpu")
