"""Hydra search-path plugin: the config groups other maze packages ship, next to ``maze.conf``.

Hydra discovers this plugin in every application; it acts only where ``pkg://maze.conf`` is on
the search path (``maze-run`` with any root, ``initialize_config_module("maze.conf")``). It
appends maze-perception's config directory (groups ``model`` and ``critic``) and, where
maze-rllib is installed, maze-rllib's (root ``conf_rllib``, groups ``rllib/algorithm`` and
``rllib/runner``) by path, found without importing the packages (which would import torch
and Ray just to read YAML files). It also registers the ``algorithm_runner`` names of earlier
releases (see :mod:`maze.rl.legacy_algorithm_runners`).
"""

from __future__ import annotations

import importlib.util
import os
from typing import Optional

from hydra.core.config_search_path import ConfigSearchPath
from hydra.plugins.search_path_plugin import SearchPathPlugin

__all__ = ["CONFIG_PACKAGES", "MazeSearchPathPlugin", "package_config_dir"]

MAZE_CONFIG_PATH = "pkg://maze.conf"

CONFIG_PACKAGES = (("maze-perception", "maze.perception"), ("maze-rllib", "maze.rllib"))
"""(provider, package) of the optional config dirs, in search order."""


def package_config_dir(package: str) -> Optional[str]:
    """The ``conf`` directory of an installed package, or None; the package is not imported."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        conf_dir = os.path.join(location, "conf")
        if os.path.isdir(conf_dir):
            return conf_dir
    return None


class MazeSearchPathPlugin(SearchPathPlugin):
    """Appends the config dirs of :data:`CONFIG_PACKAGES` to search paths that contain ``pkg://maze.conf``."""

    def manipulate_search_path(self, search_path: ConfigSearchPath) -> None:
        """Adds the installed packages' config groups after ``maze.conf``."""
        if not any(element.path == MAZE_CONFIG_PATH for element in search_path.get_path()):
            return
        from maze.rl.legacy_algorithm_runners import register_legacy_algorithm_runners

        register_legacy_algorithm_runners()
        for provider, package in CONFIG_PACKAGES:
            conf_dir = package_config_dir(package)
            if conf_dir is not None:
                search_path.append(provider=provider, path=f"file://{conf_dir}")
