"""The files of a training run directory that a deployment of its torch policy needs.

A training run writes ``state_dict.pt`` (tensors only), ``spaces_config.yaml``,
``model_config.yaml``, ``statistics.npz`` (when the wrappers normalize observations) and
Hydra's ``.hydra/config.yaml`` into its run directory. The policy is built by
``maze.perception.checkpoint.SerializedTorchPolicy`` through its ``_target_`` path, so this
module imports nothing of torch; without the ``torch`` extra it says which extra to install.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional, Union

from maze.env.errors import ConfigurationError
from maze.env.utils.install_hints import pip_install_command

__all__ = ["TrainingRunDir", "SERIALIZED_POLICY_TARGET"]

SERIALIZED_POLICY_TARGET = "maze.perception.checkpoint.SerializedTorchPolicy"
_REQUIRED = ("state_dict.pt", "spaces_config.yaml", "model_config.yaml")
_STATISTICS = "statistics.npz"
_HYDRA_CONFIG = Path(".hydra") / "config.yaml"


class TrainingRunDir:
    """A training run directory, checked to hold a policy checkpoint.

    Args:
        run_dir: The directory (``outputs/<experiment>/<timestamp>``).

    Raises:
        ConfigurationError: The directory does not exist or lacks a checkpoint file.
    """

    def __init__(self, run_dir: Union[str, os.PathLike]) -> None:
        self.directory = Path(run_dir).expanduser()
        if not self.directory.is_dir():
            raise ConfigurationError(
                f"run_dir {str(self.directory)!r} does not exist; pass the output directory of a training run "
                "(maze-run -cn conf_train ...)"
            )
        missing = [name for name in _REQUIRED if not (self.directory / name).is_file()]
        if missing:
            raise ConfigurationError(
                f"run_dir {str(self.directory)!r} is not a training run directory: it lacks {missing}. Pass the "
                "output directory of a training run"
            )

    @property
    def statistics_file(self) -> Optional[Path]:
        """The run's observation normalization statistics, if it normalized observations."""
        path = self.directory / _STATISTICS
        return path if path.is_file() else None

    @property
    def normalization_statistics(self) -> Optional[Path]:
        """What a deployment's ObservationNormalizationWrapper loads (as for an ONNX export): :attr:`statistics_file`."""
        return self.statistics_file

    @property
    def config_file(self) -> Path:
        """The file the env and wrappers configs come from (Hydra's ``.hydra/config.yaml``)."""
        return self.directory / _HYDRA_CONFIG

    def policy_config(self, device: str = "cpu", trusted_modules: Sequence[str] = ()) -> dict[str, Any]:
        """The ``SerializedTorchPolicy`` config of the run's checkpoint.

        The policy reads ``model_config.yaml`` itself, so that what it names is judged as coming from
        that file (see :mod:`maze.env.utils.trust`), trusting only maze and ``trusted_modules``.

        Raises:
            ConfigurationError: maze-perception (the ``torch`` extra) is not installed.
        """
        if importlib.util.find_spec("maze.perception") is None:
            raise ConfigurationError(
                "deploying a torch policy needs maze-perception: install maze-deploy with its torch extra "
                f"({pip_install_command('maze-deploy[torch]')})"
            )
        return {
            "_target_": SERIALIZED_POLICY_TARGET,
            "model": None,
            "model_config_file": str(self.directory / "model_config.yaml"),
            "trusted_modules": list(trusted_modules),
            "state_dict_file": str(self.directory / "state_dict.pt"),
            "spaces_dict_file": str(self.directory / "spaces_config.yaml"),
            "device": device,
        }

    def env_and_wrappers(self) -> tuple[Any, Any]:
        """The ``env`` and ``wrappers`` configs the run was trained with (from ``.hydra/config.yaml``).

        Raises:
            ConfigurationError: The run has no Hydra config, or it has no resolvable ``env``.
        """
        import yaml  # omegaconf's own dependency
        from maze.env.utils.untrusted_files import UntrustedFileError, load_untrusted_config

        path = self.directory / _HYDRA_CONFIG
        if not path.is_file():
            raise ConfigurationError(
                f"the run directory {str(self.directory)!r} has no {_HYDRA_CONFIG} to take the env and wrappers "
                "from; pass env= (and wrappers=) as they were in training"
            )
        try:
            config = load_untrusted_config(path, ("env", "wrappers"))
            if "env" not in config:
                raise ConfigurationError(f"{str(path)!r} has no env")
        except UntrustedFileError:
            raise
        except (ConfigurationError, yaml.YAMLError, UnicodeDecodeError) as error:
            raise ConfigurationError(
                f"cannot read env and wrappers from {str(path)!r} ({type(error).__name__}: {error}); pass env= "
                "(and wrappers=) as they were in training"
            ) from None
        return config["env"], config.get("wrappers")

    def check_spaces(self, policy: Any, env: Any) -> None:
        """Checks that the deployment's stack has the spaces the policy was trained on.

        Raises:
            ConfigurationError: Naming the first sub-step and key whose space differs.
        """
        spaces_config = policy.spaces_config
        spaces_config.check_compatible(
            type(spaces_config).from_env(env),
            this=f"training run {str(self.directory)!r}",
            that="deployment's env and wrappers",
        )
