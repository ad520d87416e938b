"""Run one ``maze-run`` job from a composed config: build the runner, set it up, run it."""

from __future__ import annotations

import inspect
import os
from collections.abc import Sequence
from typing import Any, Optional, Union

from maze.rl.input_checks import check_inputs, target_parameters
from maze.rl.startup_gc import resume_garbage_collection
from omegaconf import DictConfig, OmegaConf, open_dict

__all__ = ["build_runner", "prepare_config", "maze_run", "drop_replaced_group_keys"]

REPLACEABLE_GROUPS = ("env", "policy")
"""Groups whose ``_target_`` may be replaced on the command line on top of a group file."""


def drop_replaced_group_keys(cfg: DictConfig, overrides: Sequence[str]) -> list[str]:
    """Drops a group file's keys that a ``_target_`` given on the command line does not take.

    ``env._target_=my_project.make_env`` on top of the default ``env: gym_env`` would pass
    ``name`` and ``render_mode`` to ``make_env``. Keys the new target does not name as a
    parameter (by its signature) are dropped; keys it names and keys given on the command line
    stay. A target taking ``**kwargs`` is no exception: the group file's keys were written for
    the target it replaced, and such a factory usually passes them on to something that
    rejects them. A target that cannot be imported is left to the factory's error. Applies to
    :data:`REPLACEABLE_GROUPS`.

    Args:
        cfg: The composed config; changed in place.
        overrides: The command-line overrides (Hydra's ``overrides.task``).

    Returns:
        The dropped keys as dotted paths, e.g. ``["env.name", "env.render_mode"]``.
    """
    given: dict[str, set[str]] = {}
    for override in overrides:
        key = override.split("=", 1)[0].lstrip("+~")
        group, _, rest = key.partition(".")
        if group in REPLACEABLE_GROUPS and rest:
            given.setdefault(group, set()).add(rest.split(".", 1)[0])
    dropped: list[str] = []
    for group, keys in given.items():
        node = cfg.get(group)
        if "_target_" not in keys or not isinstance(node, DictConfig):
            continue
        accepted = _accepted_arguments(node.get("_target_"))
        if accepted is None:
            continue
        with open_dict(node):
            for key in [key for key in node if key not in keys and key != "_target_" and key not in accepted]:
                del node[key]
                dropped.append(f"{group}.{key}")
    return dropped


def _accepted_arguments(target: Any) -> Optional[set[str]]:
    """The keyword arguments ``target`` names (``**kwargs`` names none); None when it cannot be inspected."""
    parameters = target_parameters(target)
    if parameters is None:
        return None
    by_name = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return {name for name, parameter in parameters.items() if parameter.kind in by_name}


def prepare_config(cfg: DictConfig, base_dir: Union[str, os.PathLike]) -> DictConfig:
    """Makes ``input_dir`` absolute, checks the inputs and resolves every interpolation, in place.

    ``input_dir`` is made absolute first, so interpolations such as
    ``${input_dir}/state_dict.pt`` resolve to absolute paths that stay valid inside the run
    directory. The inputs are checked before anything is built (see :mod:`maze.rl.input_checks`).

    Args:
        cfg: The composed job config; a non-empty ``input_dir`` is taken relative to ``base_dir``.
        base_dir: The directory ``maze-run`` was started in.

    Returns:
        ``cfg`` itself, resolved.

    Raises:
        ConfigurationError: ``input_dir`` is no directory, or is empty or lacks a file although
            a target of the config needs it.
    """
    input_dir = cfg.get("input_dir")
    if input_dir:
        cfg.input_dir = os.path.abspath(os.path.join(base_dir, os.path.expanduser(str(input_dir))))
    check_inputs(cfg)
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
    resume_garbage_collection()  # maze-run pauses it for the start-up (see maze.rl.startup_gc)
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
