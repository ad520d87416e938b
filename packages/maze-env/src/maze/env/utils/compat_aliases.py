"""Aliases for old ``_target_`` paths: those of the original framework's documentation and of earlier releases.

Configs written against the documented module layout (``maze.core.wrappers...``,
``maze.preprocessors...``, ``maze.utils...``) keep working: :func:`~maze.env.utils.factory.resolve_target`
looks a path up here first, resolves the path of our class instead and warns once per path
with the new name, so the config can be updated at leisure. The tables are explicit: only
the paths they list are translated, nothing is guessed.

Each package lists the aliases of its own classes. maze-env's are :data:`ALIASES`; every
package above it ships a plain dict of its own (``{old path: our path}``, strings only) in a
module that imports nothing heavy, and registers it under the entry point group
:data:`ENTRY_POINT_GROUP` in its ``pyproject.toml``::

    [project.entry-points."maze.compat_aliases"]
    maze-foo = "maze.foo.compat_aliases:ALIASES"

Those tables are loaded once, the first time a path is not in maze-env's table.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Mapping
from importlib.metadata import EntryPoint, entry_points
from types import MappingProxyType
from typing import Optional

__all__ = ["ALIASES", "ENTRY_POINT_GROUP", "all_aliases", "registered_aliases", "translate_documented_path"]

ENTRY_POINT_GROUP = "maze.compat_aliases"
"""The entry point group under which the packages above maze-env register their alias tables."""

_WRAPPERS = "maze.env.wrappers"

ALIASES: dict[str, str] = {
    "maze.core.wrappers.maze_gym_env_wrapper.GymMazeEnv": "maze.env.gym_adapter.gym_maze_env.GymMazeEnv",
    "maze.core.wrappers.maze_gym_env_wrapper.make_gym_maze_env": "maze.env.gym_adapter.gym_maze_env.make_gym_maze_env",
    "maze.core.agent.random_policy.RandomPolicy": "maze.env.agent.random_policy.RandomPolicy",
    "maze.core.agent.dummy_cartpole_policy.DummyCartPolePolicy": "maze.env.agent.dummy_cartpole_policy.DummyCartPolePolicy",
    # wrappers
    "maze.core.wrappers.time_limit_wrapper.TimeLimitWrapper": f"{_WRAPPERS}.time_limit.TimeLimitWrapper",
    "maze.core.wrappers.monitoring_wrapper.MazeEnvMonitoringWrapper": f"{_WRAPPERS}.monitoring_wrapper.MazeEnvMonitoringWrapper",
    "maze.core.wrappers.observation_preprocessing.preprocessing_wrapper.PreProcessingWrapper": (
        f"{_WRAPPERS}.preprocessing.preprocessing_wrapper.PreProcessingWrapper"
    ),
    "maze.core.wrappers.observation_normalization.observation_normalization_wrapper.ObservationNormalizationWrapper": (
        f"{_WRAPPERS}.normalization.observation_normalization_wrapper.ObservationNormalizationWrapper"
    ),
    "maze.core.wrappers.log_stats_wrapper.LogStatsWrapper": f"{_WRAPPERS}.log_stats_wrapper.LogStatsWrapper",
    "maze.core.wrappers.no_dict_spaces_wrapper.NoDictSpacesWrapper": f"{_WRAPPERS}.dict_spaces.NoDictSpacesWrapper",
    "maze.core.wrappers.reward_scaling_wrapper.RewardScalingWrapper": f"{_WRAPPERS}.reward_wrappers.RewardScalingWrapper",
    "maze.core.wrappers.observation_normalization.observation_normalization_utils.obtain_normalization_statistics": (
        f"{_WRAPPERS}.normalization.normalization_utils.obtain_normalization_statistics"
    ),
    **{
        f"maze.preprocessors.{name}": f"{_WRAPPERS}.preprocessing.preprocessors.{module}.{name}"
        for name, module in (
            ("FlattenPreProcessor", "flatten"),
            ("OneHotPreProcessor", "one_hot"),
            ("ResizeImgPreProcessor", "resize_img"),
            ("Rgb2GrayPreProcessor", "rgb2gray"),
            ("UnSqueezePreProcessor", "un_squeeze"),
            ("TransposePreProcessor", "transpose"),
        )
    },
    # normalization strategies (named as a string in the wrapper's `default_strategy`)
    **{
        f"maze.normalization_strategies.{name}": f"{_WRAPPERS}.normalization.strategies.{name}"
        for name in ("MeanZeroStdOneObservationNormalizationStrategy", "RangeZeroOneObservationNormalizationStrategy")
    },
    # vector envs (the original framework kept them in its training package)
    "maze.train.parallelization.vector_env.sequential_vector_env.SequentialVectorEnv": (
        "maze.env.vector.sequential.SequentialVectorEnv"
    ),
    "maze.train.parallelization.vector_env.subproc_vector_env.SubprocVectorEnv": "maze.env.vector.subproc.SubprocVectorEnv",
    # utilities (maze.utils) and the Python listings of the examples
    "maze.utils.log_stats_utils.SimpleStatsLoggingSetup": "maze.env.log_stats.logging_setup.SimpleStatsLoggingSetup",
    "maze.utils.log_stats_utils.clear_global_state": "maze.env.log_stats.global_state.clear_global_state",
    "maze.utils.timeout.Timeout": "maze.env.utils.timeout.Timeout",
    "maze.utils.process.Process": "maze.env.utils.process.Process",
}
"""Old path -> the path of maze-env's class (strings only: nothing is imported here)."""

_warned: set[str] = set()


@functools.cache
def registered_aliases() -> Mapping[str, str]:
    """The alias tables that the installed packages register under :data:`ENTRY_POINT_GROUP`, merged.

    Loaded once per process. A table that cannot be loaded is skipped with a warning naming its
    entry point, so a broken install of one package does not stop resolving other paths.
    """
    merged: dict[str, str] = {}
    for entry_point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda entry: entry.name):
        try:
            merged.update(_load_table(entry_point))
        except Exception as error:  # importing the table may fail in any way a broken install does
            warnings.warn(
                f"ignoring the _target_ aliases of {entry_point.name!r} ({entry_point.value}): "
                f"{type(error).__name__}: {error}. Reinstall that package",
                RuntimeWarning,
                stacklevel=2,
            )
    return MappingProxyType(merged)


def _load_table(entry_point: EntryPoint) -> Mapping[str, str]:
    """The alias table an entry point names.

    Raises:
        TypeError: It is not a mapping of path strings to path strings.
    """
    table = entry_point.load()
    if not isinstance(table, Mapping) or not all(isinstance(item, str) for pair in table.items() for item in pair):
        raise TypeError("the entry point must name a dict of old path strings to new path strings")
    return table


def all_aliases() -> dict[str, str]:
    """Every alias: maze-env's and those of the installed packages above it."""
    return {**registered_aliases(), **ALIASES}


def translate_documented_path(path: str) -> Optional[str]:
    """Our path for an old one (warning once per path), or None if ``path`` is no alias.

    maze-env's own table is looked up first; the packages' tables only for paths not in it.
    """
    new_path = ALIASES.get(path) or registered_aliases().get(path)
    if new_path is not None and path not in _warned:
        _warned.add(path)
        warnings.warn(
            f"_target_ {path!r} is an old module path (of the original framework or an earlier maze release); "
            f"it resolves to {new_path!r}. "
            "Update the config to the new path",
            FutureWarning,
            stacklevel=3,
        )
    return new_path
