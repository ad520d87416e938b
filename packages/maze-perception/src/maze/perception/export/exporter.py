"""Exporting a TorchPolicy, or the policy of a training run directory, into a directory of ONNX files."""

from __future__ import annotations

import copy
import functools
import importlib.util
import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np
import torch
from gymnasium import spaces
from maze.distributions import DistributionMapper
from maze.env.agent.onnx_format import METADATA_FILE, ONNX_DIR
from maze.env.errors import ConfigurationError
from maze.env.utils.install_hints import pip_install_command
from maze.env.utils.spaces_config import SpacesConfig
from maze.env.utils.temp_files import error_naming_target, in_progress
from maze.env.utils.untrusted_files import UntrustedFileError, load_untrusted_config
from maze.env.wrappers.normalization import load_normalization_statistics
from maze.perception.agent.torch_model import network_name
from maze.perception.agent.torch_policy import TorchPolicy
from maze.perception.checkpoint import MODEL_CONFIG_FILE, SPACES_CONFIG_FILE, STATE_DICT_FILE, SerializedTorchPolicy
from maze.perception.export.metadata import metadata, network_entry
from maze.perception.export.onnx_network import HeadsOnly, OnnxExportError, export_network
from maze.perception.export.publish import clean_leftovers, make_staging_directory, publish
from maze.perception.perception_utils import discrete_observation_keys, observation_spaces_to_in_shapes

__all__ = ["export_policy", "export_run_dir"]

_EXTRA_MODULES = ("onnx", "onnxscript", "onnxruntime")
_HYDRA_CONFIG = Path(".hydra") / "config.yaml"
_STATISTICS = "statistics.npz"


def export_policy(
    policy: TorchPolicy,
    spaces_config: SpacesConfig,
    directory: Union[str, os.PathLike],
    *,
    env: Any = None,
    wrappers: Any = None,
    normalization_statistics: Optional[Mapping[str, Mapping[str, Any]]] = None,
    opset: Optional[int] = None,
) -> Path:
    """Writes one ONNX file per policy network plus ``metadata.json`` into ``directory``.

    Each network is checked against torch on a sample batch with onnxruntime. The files are
    written into a hidden staging directory first and published only when every one is checked
    (see :mod:`~maze.perception.export.publish`): ``directory`` holds a loadable export at every
    instant, the previous one until ``metadata.json`` switches to the new one. The files carry
    the export's version in their names (``policy_0.v2.onnx``); earlier versions are deleted.

    Args:
        policy: The policy (switched to eval mode).
        spaces_config: The spaces it was built for.
        directory: Where to write (created; an existing export there is replaced, other files stay).
        env: The env config to store for deployments (plain data), or None.
        wrappers: The wrappers config to store, or None.
        normalization_statistics: ``{observation key: {statistic: array}}`` of the run, or None.
        opset: ONNX opset; None: the exporter's recommended one.

    Returns:
        ``directory``.

    Raises:
        ConfigurationError: The ``onnx`` extra is missing.
        OnnxExportError: A network or head cannot be exported (naming it and the cause).
        OSError: A directory cannot be written, the disk is full or a file exceeds the file-size
            limit (naming the path); the previous export stays.
    """
    _check_extra()
    directory = Path(directory)
    if directory.is_symlink():  # stage next to where the files go: the renames stay on one file system
        directory = directory.resolve()
    policy.eval()
    in_shapes = observation_spaces_to_in_shapes(spaces_config.observation_spaces_dict)
    discrete = discrete_observation_keys(spaces_config.observation_spaces_dict)
    clean_leftovers(directory)
    staging = make_staging_directory(directory)
    try:
        with in_progress(staging):
            entries, opsets = [], set()
            for key, network in policy.networks.items():
                step_key = key[0] if isinstance(key, tuple) else key
                name = network_name(policy.network_prefix, key)
                sample = _sample_inputs(spaces_config.observation_spaces_dict[step_key], in_shapes[step_key])
                heads = _head_shapes(network, sample, spaces_config.action_spaces_dict[step_key], name)
                module = HeadsOnly(network, list(sample), list(heads))
                verify = functools.partial(_verify, module, sample, name=name)
                opsets.add(export_network(module, list(sample.values()), staging / f"{name}.onnx", name, opset, verify))
                mapper = _mapper(policy.distribution_mapper, step_key)
                entries.append(network_entry(key, f"{name}.onnx", in_shapes[step_key], discrete, heads, mapper))
            data = metadata(spaces_config.to_data(), entries, max(opsets), normalization_statistics, env, wrappers)
            publish(staging, directory, data, METADATA_FILE)
    except OSError as error:
        raise error_naming_target(error, staging, directory) from error
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return directory


def export_run_dir(
    run_dir: Union[str, os.PathLike],
    output_dir: Optional[Union[str, os.PathLike]] = None,
    opset: Optional[int] = None,
    trusted_modules: Sequence[str] = (),
) -> Path:
    """Exports the policy of a training run directory (default output: ``<run_dir>/onnx``).

    Stores the run's env and wrappers config (``.hydra/config.yaml``) and its normalization
    statistics (``statistics.npz``) in the metadata, so a deployment needs only the output
    directory.

    Args:
        run_dir: A training run directory (``state_dict.pt``, ``spaces_config.yaml``, ``model_config.yaml``).
        output_dir: Where to write; None: ``<run_dir>/onnx``.
        opset: ONNX opset; None: the exporter's recommended one.
        trusted_modules: Modules besides maze's own whose classes ``model_config.yaml`` may name.

    Raises:
        ConfigurationError: The directory holds no policy, or its configs are unusable or untrusted.
        OnnxExportError: A network cannot be exported.
    """
    _check_extra()
    run = Path(run_dir).expanduser()
    missing = [name for name in (STATE_DICT_FILE, SPACES_CONFIG_FILE, MODEL_CONFIG_FILE) if not (run / name).is_file()]
    if not run.is_dir() or missing:
        problem = "does not exist" if not run.is_dir() else f"holds no policy (it lacks {', '.join(missing)})"
        raise ConfigurationError(
            f"{str(run)!r} {problem}; pass the output directory of a training run (maze-run -cn conf_train ...)"
        )
    policy = SerializedTorchPolicy(
        model=None,
        state_dict_file=run / STATE_DICT_FILE,
        spaces_dict_file=run / SPACES_CONFIG_FILE,
        model_config_file=run / MODEL_CONFIG_FILE,
        trusted_modules=trusted_modules,
    )
    env, wrappers = _env_and_wrappers(run)
    statistics = load_normalization_statistics(run / _STATISTICS) if (run / _STATISTICS).is_file() else None
    return export_policy(
        policy,
        policy.spaces_config,
        run / ONNX_DIR if output_dir is None else output_dir,
        env=env,
        wrappers=wrappers,
        normalization_statistics=statistics,
        opset=opset,
    )


def _check_extra() -> None:
    missing = [name for name in _EXTRA_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        raise ConfigurationError(
            f"exporting to ONNX needs {', '.join(missing)}: install maze-perception with its onnx extra "
            f"({pip_install_command('maze-perception[onnx]')})"
        )


def _sample_inputs(space: spaces.Dict, in_shapes: Mapping[str, tuple[int, ...]]) -> dict[str, torch.Tensor]:
    """A batch of two sampled observations per key, ``[2, *in_shape]`` float32 (the policy's input format)."""
    space = copy.deepcopy(space)
    space.seed(0)
    samples = [space.sample() for _ in range(2)]
    return {
        key: torch.as_tensor(np.stack([np.asarray(sample[key]) for sample in samples]), dtype=torch.float32).reshape(
            2, *shape
        )
        for key, shape in in_shapes.items()
    }


def _head_shapes(
    network: torch.nn.Module, sample: Mapping[str, torch.Tensor], action_space: spaces.Dict, name: str
) -> dict[str, tuple[int, ...]]:
    """Action head -> logits shape (without batch dim) of the network's outputs on ``sample``."""
    with torch.inference_mode():
        output = network(dict(sample))
    missing = [head for head in action_space.spaces if head not in output]
    if missing:
        raise OnnxExportError(
            f"policy network {name!r} returns {list(output)}, but its sub-step has the action heads "
            f"{list(action_space.spaces)}; it lacks {missing}"
        )
    return {head: tuple(output[head].shape[1:]) for head in action_space.spaces}


def _mapper(distribution_mapper: Any, step_key: Any) -> DistributionMapper:
    return distribution_mapper if isinstance(distribution_mapper, DistributionMapper) else distribution_mapper[step_key]


def _verify(module: HeadsOnly, sample: Mapping[str, torch.Tensor], path: Path, *, name: str) -> None:
    """Runs the ONNX file with onnxruntime on ``sample`` and compares with torch (masked logits must match exactly)."""
    import onnxruntime

    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    fed = {item.name for item in session.get_inputs()}
    got = session.run(list(module.head_names), {key: value.numpy() for key, value in sample.items() if key in fed})
    with torch.inference_mode():
        expected = module(*sample.values())
    for head, ours, theirs in zip(module.head_names, got, expected, strict=True):
        if not np.allclose(ours, theirs.numpy(), rtol=1e-4, atol=1e-5):
            raise OnnxExportError(
                f"the ONNX export of policy network {name!r} computes other logits for head {head!r} than torch (max "
                f"difference {np.max(np.abs(ours - theirs.numpy())):.3g}); the network uses an operation the "
                "exporter translates differently: serve this policy with torch"
            )


def _env_and_wrappers(run: Path) -> tuple[Any, Any]:
    """The run's resolved ``env`` and ``wrappers`` configs (None each when the run has no Hydra config)."""
    import yaml

    path = run / _HYDRA_CONFIG
    if not path.is_file():
        return None, None
    try:
        config = load_untrusted_config(path, ("env", "wrappers"))
    except UntrustedFileError:
        raise
    except (ConfigurationError, yaml.YAMLError, UnicodeDecodeError) as error:
        raise ConfigurationError(
            f"cannot resolve env and wrappers of {str(path)!r} ({type(error).__name__}: {error})"
        ) from None
    return config.get("env"), config.get("wrappers")
