"""Run one ``maze-run`` job from a composed config: build the runner, set it up, run it."""

from __future__ import annotations

import os
from typing import Any, Optional, Union

from omegaconf import DictConfig, OmegaConf

__all__ = ["build_runner", "prepare_config", "maze_run"]


def prepare_config(cfg: DictConfig, base_dir: Union[str, os.PathLike]) -> DictConfig:
    """Makes ``input_dir`` absolute and resolves every interpolation, in place.

    ``input_dir`` is made absolute first, so interpolations such as
    ``${input_dir}/state_dict.pt`` resolve to absolute paths that stay valid inside the run
    directory.

    Args:
        cfg: The composed job config; a non-empty ``input_dir`` is taken relative to ``base_dir``.
        base_dir: The directory ``maze-run`` was started in.

    Returns:
        ``cfg`` itself, resolved.
    """
    input_dir = cfg.get("input_dir")
    if input_dir:
        cfg.input_dir = os.path.abspath(os.path.join(base_dir, os.path.expanduser(str(input_dir))))
    OmegaConf.resolve(cfg)
    return cfg


def maze_run(cfg: Any) -> Optional[float]:
    """Runs the job a config describes.

    Instantiates ``cfg.runner`` (a :class:`maze.rollout.Runner`; unknown ``_target_`` s and
    arguments raise a :class:`~maze.env.errors.ConfigurationError` with close matches), calls
    its ``setup(cfg)`` and returns what its ``run()`` returns.

    Args:
        cfg: The resolved job config (see :func:`prepare_config`), with a ``runner`` node.

    Returns:
        The runner's objective (for hyper-parameter sweepers), or None.
    """
    runner = build_runner(cfg)
    runner.setup(cfg)
    return runner.run()


def build_runner(cfg: Any) -> Any:
    """Instantiates ``cfg.runner`` (a :class:`maze.rollout.Runner`), not yet set up.

    Raises:
        ConfigurationError: For a config without ``runner``, unknown ``_target_`` s and arguments.
    """
    from maze.env.errors import ConfigurationError
    from maze.env.utils.factory import Factory
    from maze.rollout import Runner

    runner_config = cfg.get("runner") if hasattr(cfg, "get") else None
    if runner_config is None:
        raise ConfigurationError("the config has no `runner`; pick one, e.g. runner=parallel (rollouts) or runner=dev")
    return Factory(Runner).instantiate(runner_config)
