"""Checkpoint files: tensors-only state dicts and plain-data configs, written atomically.

* ``state_dict.pt`` holds nested dicts of tensors only and loads with
  ``torch.load(path, weights_only=True)``; nothing in it runs code when loaded.
* Spaces (:class:`~maze.perception.models.spaces_config.SpacesConfig`) and model configs
  are YAML/JSON next to it.
* Every write goes to a temporary file in the target directory, is flushed to disk and then
  renamed over the target, so a run killed mid-write keeps the previous good file.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Optional, Union

import torch
import yaml
from maze.env.errors import ConfigurationError
from maze.env.utils.factory import to_plain_config
from maze.env.utils.files import atomic_write_bytes
from maze.env.utils.finite import NonFiniteValueError

__all__ = [
    "atomic_write_bytes",
    "check_tensors_only",
    "find_non_finite_tensor",
    "load_state_dict_file",
    "save_model_config",
    "save_state_dict",
    "state_dict_bytes",
]

PathType = Union[str, Path]


def check_tensors_only(state_dict: Mapping[str, Any], where: str = "state_dict") -> None:
    """Checks that a (nested) state dict holds only str keys and tensors.

    Raises:
        ConfigurationError: Naming the first entry that is neither a tensor nor a nested dict.
    """
    for key, value in state_dict.items():
        if not isinstance(key, str):
            raise ConfigurationError(f"{where} has the non-string key {key!r}; checkpoint keys must be strings")
        if isinstance(value, Mapping):
            check_tensors_only(value, f"{where}[{key!r}]")
        elif not isinstance(value, torch.Tensor):
            raise ConfigurationError(
                f"{where}[{key!r}] is a {type(value).__name__}, but checkpoints hold tensors only; store other "
                "data as YAML/JSON next to state_dict.pt"
            )


def find_non_finite_tensor(state_dict: Mapping[str, Any], where: str = "") -> Optional[str]:
    """The name (``network.parameter``) of the first floating tensor holding NaN or inf, or None."""
    for key, value in state_dict.items():
        name = f"{where}.{key}" if where else str(key)
        if isinstance(value, Mapping):
            found = find_non_finite_tensor(value, name)
            if found is not None:
                return found
        elif isinstance(value, torch.Tensor) and value.is_floating_point() and not torch.isfinite(value).all():
            return name
    return None


def save_state_dict(state_dict: Mapping[str, Any], path: PathType) -> None:
    """Saves a tensors-only (nested) state dict atomically with ``torch.save``.

    Tensors are moved to the CPU, so the file loads on machines without the training device.

    Raises:
        ConfigurationError: If the state dict holds anything but tensors and nested dicts.
        NonFiniteValueError: If a tensor holds NaN or inf; nothing is written (the previous
            file stays).
    """
    atomic_write_bytes(path, state_dict_bytes(state_dict, path))


def state_dict_bytes(state_dict: Mapping[str, Any], path: PathType) -> bytes:
    """The content of a tensors-only state dict file as :func:`save_state_dict` writes it (tensors on the CPU).

    Args:
        state_dict: The (nested) state dict.
        path: The file it is meant for (named in errors).

    Raises:
        ConfigurationError: If the state dict holds anything but tensors and nested dicts.
        NonFiniteValueError: If a tensor holds NaN or inf.
    """
    check_tensors_only(state_dict)
    culprit = find_non_finite_tensor(state_dict)
    if culprit is not None:
        raise NonFiniteValueError(
            f"not saving {str(path)!r}: {culprit} holds NaN or inf values (the training diverged); the previous "
            "file is kept"
        )
    buffer = io.BytesIO()
    torch.save(_to_cpu(state_dict), buffer)
    return buffer.getvalue()


def _to_cpu(state_dict: Mapping[str, Any]) -> dict[str, Any]:
    return {
        key: _to_cpu(value) if isinstance(value, Mapping) else value.detach().cpu() for key, value in state_dict.items()
    }


def load_state_dict_file(path: PathType, map_location: Union[str, torch.device, None] = "cpu") -> dict[str, Any]:
    """Loads a state dict with ``torch.load(..., weights_only=True)``.

    Raises:
        FileNotFoundError: Naming the missing file.
        ConfigurationError: If the file is no tensors-only checkpoint (e.g. a pickled model, or a dict
            holding numbers or strings besides tensors), or a tensor holds NaN or inf.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"state dict file {str(path)!r} does not exist")
    try:
        state_dict = torch.load(path, map_location=map_location, weights_only=True)
    except Exception as error:  # torch raises UnpicklingError, RuntimeError, ... for foreign files
        raise ConfigurationError(
            f"{str(path)!r} is not a tensors-only checkpoint loadable with weights_only=True "
            f"({type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}). A truncated or corrupt "
            "file (e.g. a run killed while copying it) cannot be repaired: restore it from a copy or delete it (a "
            "resume then starts that state fresh); a model saved some other way can be re-saved with "
            "maze.perception.serialization.save_state_dict"
        ) from None
    if not isinstance(state_dict, Mapping):
        raise ConfigurationError(
            f"{str(path)!r} holds a {type(state_dict).__name__}, not a state dict (network name -> parameters)"
        )
    check_tensors_only(state_dict, repr(str(path)))
    culprit = find_non_finite_tensor(state_dict)
    if culprit is not None:
        raise ConfigurationError(
            f"{str(path)!r} cannot be used: {culprit} holds NaN or inf values (it was saved by a diverged "
            "training run or altered); load a checkpoint with finite parameters"
        )
    return state_dict


def save_model_config(config: Any, path: PathType) -> None:
    """Writes a model (composer) config as YAML, atomically; OmegaConf configs are resolved first."""
    plain = to_plain_config(config)
    atomic_write_bytes(path, yaml.safe_dump(plain, sort_keys=False).encode("utf-8"))
