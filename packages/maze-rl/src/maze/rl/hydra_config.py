"""Read ``maze-run`` configs from Python: compose a Hydra config, build the env it describes.

* :func:`read_hydra_config` composes a root config of a config module (``maze.conf`` by
  default) with Hydra, exactly as ``maze-run -cn <root> <overrides>`` does, without running it.
* :func:`make_env_from_hydra` builds the env and wrappers of such a config (for use with
  other frameworks, scripts and notebooks).
* :func:`hydra_override` writes a Python value as a command-line override (``key=value``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from omegaconf import DictConfig

__all__ = ["hydra_override", "make_env_from_hydra", "read_hydra_config"]


def hydra_override(key: str, value: Any) -> str:
    """The Hydra command-line override that sets ``key`` to ``value``.

    Args:
        key: A config key or group, optionally with Hydra's prefix (``+key``, ``++key``, ``~key``).
        value: None, a bool, a number, a string or a (nested) list / dict of those.

    Returns:
        E.g. ``algorithm.lr=0.001``, ``env.name='CartPole-v1'``, ``runner=dev``.

    Raises:
        TypeError: For values that have no override syntax (objects).
    """
    return f"{key}={_override_value(value)}"


def _override_value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else {math.inf: "inf", -math.inf: "-inf"}.get(value, "nan")
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace("'", "\\'")
        return f"'{escaped}'"
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{key}:{_override_value(item)}" for key, item in value.items()) + "}"
    if isinstance(value, Sequence):
        return "[" + ",".join(_override_value(item) for item in value) + "]"
    raise TypeError(f"{type(value).__name__} values have no Hydra override syntax: {value!r}")


def read_hydra_config(
    config_module: str = "maze.conf",
    config_name: str = "conf_rollout",
    overrides: Sequence[str] = (),
    return_hydra_config: bool = False,
    **hydra_overrides: Any,
) -> DictConfig:
    """Composes a root config with Hydra, as ``maze-run -cn <config_name> <overrides>`` would.

    Example: ``read_hydra_config(config_name="conf_train", env="gym_env", algorithm="ppo")``;
    keyword overrides name top-level keys or groups, ``overrides`` takes any command-line
    override (``["algorithm.lr=0.001", "+experiment=cartpole_ppo_fast"]``); a dict-valued override
    of an existing key replaces its value (:mod:`maze.rl.dict_overrides`).

    Args:
        config_module: The Python package holding the root config (its groups from
            maze-perception are added by the search-path plugin).
        config_name: The root config (``conf_rollout``, ``conf_train`` or your own).
        overrides: Command-line overrides, applied after the keyword ones.
        return_hydra_config: Keep the ``hydra`` node (run directory pattern, chosen options).
        **hydra_overrides: ``key=value`` overrides as keyword arguments (values as in
            :func:`hydra_override`).

    Returns:
        The composed, unresolved config.

    Raises:
        hydra.errors.HydraException: For unknown groups, options or keys (as on the command line).
    """
    from hydra import compose, initialize_config_module
    from maze.rl.dict_overrides import dict_overrides_replace

    arguments = [hydra_override(key, value) for key, value in hydra_overrides.items()] + list(overrides)
    with initialize_config_module(config_module, version_base="1.3"), dict_overrides_replace():
        return compose(config_name, arguments, return_hydra_config=return_hydra_config)


def make_env_from_hydra(
    config_module: str = "maze.conf",
    config_name: str = "conf_rollout",
    overrides: Sequence[str] = (),
    **hydra_overrides: Any,
) -> Any:
    """Builds the env and wrappers of a composed config (see :func:`read_hydra_config`).

    The env of the ``env`` group is wrapped with the ``wrappers`` group, first entry
    innermost. An :class:`~maze.env.wrappers.normalization.ObservationNormalizationWrapper`
    without statistics gets them from the ``input_dir`` run directory when it holds the
    statistics file, else estimated from 1000 sampled observations.

    Returns:
        The wrapped env.
    """
    from maze.env.core.structured_env import StructuredEnv
    from maze.env.errors import ConfigurationError
    from maze.env.utils.factory import Factory, to_plain_config
    from maze.env.wrappers.normalization.normalization_utils import (
        find_normalization_wrapper,
        obtain_normalization_statistics,
    )
    from maze.env.wrappers.wrapper_factory import WrapperFactory

    cfg = to_plain_config(read_hydra_config(config_module, config_name, overrides, **hydra_overrides))
    if not cfg.get("env"):
        raise ConfigurationError(f"the config {config_module}/{config_name} has no `env`; pick one, e.g. env=gym_env")
    env = Factory(StructuredEnv, config_key="env").instantiate(cfg["env"])
    env = WrapperFactory.wrap_from_config(env, cfg.get("wrappers") or {})
    try:
        wrapper = find_normalization_wrapper(env)
    except ConfigurationError:
        return env
    stored = Path(str(cfg["input_dir"])).expanduser() / wrapper.statistics_dump if cfg.get("input_dir") else None
    if stored is not None and stored.is_file():
        wrapper.set_normalization_statistics(wrapper.load_statistics(stored))
    obtain_normalization_statistics(env)
    return env
