"""All packages installed together share the ``maze`` namespace without clashing."""

import importlib
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))
from packages import PACKAGES  # noqa: E402

LEAVES = [(package.name, leaf) for package in PACKAGES if package.own_session is None for leaf in package.leaves]
"""The leaves this session installs (a package with a session of its own, e.g. maze-rllib, is checked there)."""


@pytest.mark.parametrize(("distribution", "leaf"), LEAVES, ids=[f"maze.{leaf}" for _, leaf in LEAVES])
def test_every_leaf_imports_from_its_installed_distribution(distribution: str, leaf: str) -> None:
    module = importlib.import_module(f"maze.{leaf}")
    assert "site-packages" in module.__file__
    assert version(distribution) == "0.1.0"


def test_maze_is_a_namespace_package_without_init() -> None:
    import maze

    assert getattr(maze, "__file__", None) is None
    assert len(list(maze.__path__)) >= 1


def test_importing_everything_in_one_interpreter_keeps_env_layer_torch_free() -> None:
    code = "import sys, maze.env, maze.rollout, maze.viz; print('torch' in sys.modules)"
    result = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
