"""maze-rllib installs as a distribution of its own beside the other maze packages (checked in its own session)."""

from __future__ import annotations

import importlib
from importlib.metadata import requires, version


def test_maze_rllib_imports_from_its_installed_distribution_in_the_shared_namespace() -> None:
    rllib_leaf = importlib.import_module("maze.rllib")
    rl_leaf = importlib.import_module("maze.rl")
    assert "site-packages" in rllib_leaf.__file__ and "site-packages" in rl_leaf.__file__
    assert version("maze-rllib") == "0.1.0"
    assert any(requirement.startswith("ray[rllib]") for requirement in requires("maze-rllib") or [])
