"""Checkpoint directories: saving a model with its spaces and config, and rebuilding a trained policy.

A checkpoint directory holds ``state_dict.pt`` (tensors only), ``spaces_config.yaml`` and,
optionally, ``model_config.yaml`` (the composer config), all written atomically.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Optional, Union

import torch
import yaml
from gymnasium import spaces
from maze.env.core.actor import StepKeyType
from maze.env.errors import ConfigurationError
from maze.env.utils.factory import ConfigType, to_plain_config
from maze.env.utils.trust import modules_named_in, trusted_targets_only
from maze.env.utils.untrusted_files import load_untrusted_yaml
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
    """A policy for rollouts of a trained model (``policy=torch_policy input_dir=<training run>``).

    Builds the model composer from the model config and the stored spaces (not from an
    env), takes its policy networks and distribution mapper, loads the policy part of the
    state dict (``torch.load(weights_only=True)``) and switches to evaluation mode.

    The model config is the one the run was trained with: ``model_config_file`` (the
    ``model_config.yaml`` every training run writes) when that file exists, else ``model``.
    So experiments that changed the model (e.g. layer sizes) roll out correctly whatever
    ``model=`` says.

    Args:
        model: The model composer config used in training (``_target_`` + its arguments);
            used when ``model_config_file`` is not given or does not exist.
        state_dict_file: Path of ``state_dict.pt``.
        spaces_dict_file: Path of the spaces config (``spaces_config.yaml``).
        device: Where the policy runs.
        env_spaces: Optional spaces of the env it will act in; a mismatch raises a
            ConfigurationError naming the first mismatching key.
        model_config_file: Path of the run's ``model_config.yaml``; preferred over ``model``.
        observation_spaces_dict: Optional observation spaces of the env (rollout runners
            pass them); checked against the stored spaces like ``env_spaces``.
        action_spaces_dict: Optional action spaces of the env, checked as well.
        trusted_modules: Modules besides maze's own whose classes ``model_config_file`` may
            name (the run directory may come from elsewhere: see :mod:`maze.env.utils.trust`);
            the modules that ``model`` names are trusted as well.

    Raises:
        ConfigurationError: For missing checkpoint files, no usable model config, spaces
            that differ from the env's, or a model config file naming untrusted code.
    """

    def __init__(
        self,
        model: Optional[ConfigType],
        state_dict_file: Union[str, Path],
        spaces_dict_file: Union[str, Path],
        device: Union[str, torch.device] = "cpu",
        env_spaces: Optional[SpacesConfig] = None,
        model_config_file: Optional[Union[str, Path]] = None,
        observation_spaces_dict: Optional[Mapping[StepKeyType, spaces.Dict]] = None,
        action_spaces_dict: Optional[Mapping[StepKeyType, spaces.Dict]] = None,
        trusted_modules: Sequence[str] = (),
    ) -> None:
        for name, path in (("state_dict_file", state_dict_file), ("spaces_dict_file", spaces_dict_file)):
            if not Path(path).is_file():
                raise ConfigurationError(
                    f"SerializedTorchPolicy: {name} {str(path)!r} does not exist. policy=torch_policy loads a training "
                    "run: pass input_dir=<run directory of maze-run -cn conf_train> (it holds state_dict.pt and "
                    "spaces_config.yaml)"
                )
        spaces_config = SpacesConfig.load(spaces_dict_file)
        if env_spaces is not None:
            spaces_config.check_compatible(env_spaces)
        if observation_spaces_dict is not None and action_spaces_dict is not None:
            env_config = SpacesConfig(
                dict(action_spaces_dict), dict(observation_spaces_dict), spaces_config.agent_counts_dict
            )
            try:
                spaces_config.check_compatible(env_config, this="trained policy", that="env of the rollout")
            except ConfigurationError as error:
                raise ConfigurationError(
                    f"{error}. Roll out with the env and wrappers of the training run (see its .hydra/config.yaml)"
                ) from None
        model_config = _model_config(model, model_config_file)
        with _trust_scope(model, model_config_file, trusted_modules):
            composer = build_model_composer(model_config, spaces_config, with_critic=False)
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


def _model_config(model: Optional[ConfigType], model_config_file: Optional[Union[str, Path]]) -> ConfigType:
    """The stored model config when ``model_config_file`` exists, else ``model``."""
    if model_config_file is not None and Path(model_config_file).is_file():
        try:
            stored = load_untrusted_yaml(model_config_file)
        except (yaml.YAMLError, UnicodeDecodeError) as error:
            raise ConfigurationError(
                f"model_config_file {str(model_config_file)!r} is not valid YAML ({type(error).__name__}); restore "
                "the file of the training run, or remove it to use the model config given with model="
            ) from None
        if not isinstance(stored, Mapping) or "_target_" not in stored:
            raise ConfigurationError(
                f"model_config_file {str(model_config_file)!r} holds no model config (a mapping with _target_)"
            )
        return stored
    if not model:
        raise ConfigurationError(
            f"SerializedTorchPolicy needs the model config of the training run: model_config_file "
            f"{str(model_config_file)!r} does not exist and no model was given; pass model=<the model trained>"
        )
    return model


def _trust_scope(
    model: Optional[ConfigType], model_config_file: Optional[Union[str, Path]], trusted_modules: Sequence[str]
) -> contextlib.AbstractContextManager:
    """Restricts the stored model config to trusted classes; the user's own ``model`` config is trusted."""
    if model_config_file is None or not Path(model_config_file).is_file():
        return contextlib.nullcontext()
    user_modules = modules_named_in(to_plain_config(model)) if model else []
    return trusted_targets_only(repr(str(model_config_file)), [*trusted_modules, *user_modules])
