"""The ONNX export of a training run (``<run dir>/onnx``) as AgentDeployment.from_run_dir(..., backend="onnx") reads it.

Everything comes from ``metadata.json`` (plain data) next to the ONNX files: the spaces, the
env and wrappers configs and the normalization statistics, so a service may ship the
``onnx`` directory alone. Nothing here imports torch or onnxruntime.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Optional, Union

from maze.deploy.onnx_policy import read_metadata
from maze.env.agent.onnx_format import METADATA_FILE, ONNX_DIR, previous_export_prefix
from maze.env.errors import ConfigurationError
from maze.env.utils.spaces_config import SpacesConfig

__all__ = ["ONNX_POLICY_TARGET", "OnnxRunDir"]

ONNX_POLICY_TARGET = "maze.deploy.onnx_policy.OnnxPolicy"


class OnnxRunDir:
    """A training run directory with an ONNX export, or the export directory itself.

    Args:
        run_dir: ``<run dir>`` (holding ``onnx/metadata.json``) or ``<run dir>/onnx``.

    Raises:
        ConfigurationError: The directory holds no export (naming the command that writes one).
    """

    def __init__(self, run_dir: Union[str, os.PathLike]) -> None:
        self.directory = Path(run_dir).expanduser()
        nested = self.directory / ONNX_DIR
        self.model_dir = nested if (nested / METADATA_FILE).is_file() else self.directory
        if not (self.model_dir / METADATA_FILE).is_file():
            raise ConfigurationError(
                f"{str(self.directory)!r} holds no ONNX export (no {ONNX_DIR}/{METADATA_FILE}); export the training "
                f"run first: python -m maze.perception.export {self.directory}{_hidden_export_hint(self.directory)}"
            )
        self.metadata = read_metadata(self.model_dir)

    @property
    def config_file(self) -> Path:
        """The file the env and wrappers configs come from."""
        return self.model_dir / METADATA_FILE

    @property
    def normalization_statistics(self) -> Optional[Mapping[str, Mapping[str, Any]]]:
        """The run's observation normalization statistics (``{key: {statistic: values}}``), if it had any."""
        return self.metadata.get("normalization_statistics")

    def policy_config(self, device: str = "cpu", trusted_modules: Sequence[str] = ()) -> dict[str, Any]:
        """The ``OnnxPolicy`` config of the export (``device`` and ``trusted_modules`` do not apply: no code is loaded)."""
        return {"_target_": ONNX_POLICY_TARGET, "model_dir": str(self.model_dir)}

    def env_and_wrappers(self) -> tuple[Any, Any]:
        """The ``env`` and ``wrappers`` configs of the training run, as exported.

        Raises:
            ConfigurationError: The export has no env config (the run had no Hydra config).
        """
        env = self.metadata.get("env")
        if env is None:
            raise ConfigurationError(
                f"the ONNX export {str(self.model_dir)!r} has no env config (its training run had no "
                ".hydra/config.yaml); pass env= (and wrappers=) as they were in training"
            )
        return env, self.metadata.get("wrappers")

    def check_spaces(self, policy: Any, env: Any) -> None:
        """Checks that the deployment's stack has the spaces the exported policy was trained on.

        Raises:
            ConfigurationError: Naming the first sub-step and key whose space differs.
        """
        policy.spaces_config.check_compatible(
            SpacesConfig.from_env(env),
            this=f"ONNX export {str(self.model_dir)!r}",
            that="deployment's env and wrappers",
        )


def _hidden_export_hint(directory: Path) -> str:
    """A note on an export that an older maze's interrupted export hid in ``.onnx-old-*`` (empty: none)."""
    hidden = sorted(directory.glob(f"{previous_export_prefix(ONNX_DIR)}*/{ONNX_DIR}/{METADATA_FILE}"))
    if not hidden:
        return ""
    return (
        f" (an interrupted export of an older maze left the previous export in {str(hidden[-1].parent)!r}; the next "
        "export moves it back, or move it to the onnx directory yourself)"
    )
