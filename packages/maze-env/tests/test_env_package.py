"""The installed maze-env distribution: version, public API and freedom from torch."""

import pkgutil
import subprocess
import sys
from importlib.metadata import version

import maze.env


def test_leaf_reports_installed_version() -> None:
    assert maze.env.__version__ == version("maze-env")


def test_every_public_name_is_importable_from_the_leaf() -> None:
    missing = [name for name in maze.env.__all__ if not hasattr(maze.env, name)]
    assert missing == []
    assert {"CoreEnv", "MazeEnv", "GymMazeEnv", "TimeLimitWrapper", "SequentialVectorEnv", "RandomPolicy"} <= set(
        maze.env.__all__
    )


def test_importing_every_module_never_imports_torch() -> None:
    modules = [info.name for info in pkgutil.walk_packages(maze.env.__path__, prefix="maze.env.")]
    code = "import importlib, sys\nfor name in {!r}: importlib.import_module(name)\nprint('torch' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code.format(modules)], capture_output=True, text=True, check=True)
    assert len(modules) > 30
    assert result.stdout.strip() == "False"
