"""Hydra search-path plugin: the config groups other maze packages ship, next to ``maze.conf``.

Hydra discovers this plugin in every application; it acts only where ``pkg://maze.conf`` is on
the search path (``maze-run`` with any root, ``initialize_config_module("maze.conf")``). It
appends maze-perception's config directory (groups ``model`` and ``critic``) by path, found
without importing maze.perception (which would import torch just to read YAML files).
"""

from __future__ import annotations

import importlib.util
import os
from typing import Optional

from hydra.core.config_search_path import ConfigSearchPath
from hydra.plugins.search_path_plugin import SearchPathPlugin

__all__ = ["MazeSearchPathPlugin", "package_config_dir"]

MAZE_CONFIG_PATH = "pkg://maze.conf"


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
    """Appends ``maze/perception/conf`` to search paths that contain ``pkg://maze.conf``."""

    def manipulate_search_path(self, search_path: ConfigSearchPath) -> None:
        """Adds the maze-perception config groups after ``maze.conf``."""
        if not any(element.path == MAZE_CONFIG_PATH for element in search_path.get_path()):
            return
        conf_dir = package_config_dir("maze.perception")
        if conf_dir is not None:
            search_path.append(provider="maze-perception", path=f"file://{conf_dir}")
