"""Checkpoint directories: saving a model with its spaces and config, and rebuilding a trained policy.

A checkpoint directory holds ``state_dict.pt`` (tensors only), ``spaces_config.yaml`` and,
optionally, ``model_config.yaml`` (the composer config), all written atomically.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Union

import torch
from maze.env.utils.factory import ConfigType
from maze.perception.agent.torch_model import TorchModel
from maze.perception.agent.torch_policy import TorchPolicy
from maze.perception.models.base_model_composer import build_model_composer
from maze.perception.models.spaces_config import SpacesConfig
from maze.perception.serialization import load_state_dict_file, save_model_config, save_state_dict

__all__ = [
    "MODEL_CONFIG_FILE",
    "SPACES_CONFIG_FILE",
    "STATE_DICT_FILE",
    "SerializedTorchPolicy",
    "load_checkpoint",
    "save_checkpoint",
]

STATE_DICT_FILE = "state_dict.pt"
SPACES_CONFIG_FILE = "spaces_config.yaml"
MODEL_CONFIG_FILE = "model_config.yaml"


def save_checkpoint(
    directory: Union[str, Path],
    model: TorchModel,
    spaces_config: SpacesConfig,
    model_config: Optional[ConfigType] = None,
) -> Path:
    """Writes ``state_dict.pt``, ``spaces_config.yaml`` and (if given) ``model_config.yaml`` atomically.

    Returns:
        The path of ``state_dict.pt``.
    """
    directory = Path(directory)
    spaces_config.save(directory / SPACES_CONFIG_FILE)
    if model_config is not None:
        save_model_config(model_config, directory / MODEL_CONFIG_FILE)
    save_state_dict(model.state_dict(), directory / STATE_DICT_FILE)
    return directory / STATE_DICT_FILE


def load_checkpoint(
    directory: Union[str, Path], model: TorchModel, expected_spaces: Optional[SpacesConfig] = None
) -> None:
    """Loads ``state_dict.pt`` of a checkpoint directory into ``model``.

    Args:
        directory: The checkpoint directory.
        model: The model to load into (its networks are matched by name; extra entries are ignored).
        expected_spaces: The spaces ``model`` was built for; compared with the stored ones first.

    Raises:
        ConfigurationError: If the spaces differ (naming the first mismatching key) or parameters do not fit.
    """
    directory = Path(directory)
    if expected_spaces is not None:
        SpacesConfig.load(directory / SPACES_CONFIG_FILE).check_compatible(expected_spaces)
    model.load_state_dict(load_state_dict_file(directory / STATE_DICT_FILE, map_location=model.device))


class SerializedTorchPolicy(TorchPolicy):
    """A policy for rollouts of a trained model.

    Builds the model composer from ``model`` and the stored spaces (not from an env), takes
    its policy networks and distribution mapper, loads the policy part of the state dict
    (``torch.load(weights_only=True)``) and switches to evaluation mode.

    Args:
        model: The model composer config used in training (``_target_`` + its arguments).
        state_dict_file: Path of ``state_dict.pt``.
        spaces_dict_file: Path of the spaces config (``spaces_config.yaml``).
        device: Where the policy runs.
        env_spaces: Optional spaces of the env it will act in; a mismatch raises a
            ConfigurationError naming the first mismatching key.
    """

    def __init__(
        self,
        model: ConfigType,
        state_dict_file: Union[str, Path],
        spaces_dict_file: Union[str, Path],
        device: Union[str, torch.device] = "cpu",
        env_spaces: Optional[SpacesConfig] = None,
    ) -> None:
        spaces_config = SpacesConfig.load(spaces_dict_file)
        if env_spaces is not None:
            spaces_config.check_compatible(env_spaces)
        composer = build_model_composer(model, spaces_config, with_critic=False)
        super().__init__(
            networks=composer.policy.networks,
            distribution_mapper=composer.distribution_mapper,
            device=device,
            substeps_with_separate_agent_nets=composer.policy.substeps_with_separate_agent_nets,
            observation_spaces_dict=spaces_config.observation_spaces_dict,
        )
        self.spaces_config = spaces_config
        self.load_state_dict(load_state_dict_file(state_dict_file, map_location=self.device))
        self.eval()
