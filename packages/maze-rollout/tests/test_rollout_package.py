"""The installed distribution exposes its leaf and its version."""

import subprocess
import sys
from importlib.metadata import version

import maze.rollout


def test_leaf_reports_installed_version() -> None:
    assert maze.rollout.__version__ == version("maze-rollout")


def test_leaf_is_installed_not_imported_from_the_source_tree() -> None:
    assert "site-packages" in maze.rollout.__file__


def test_importing_rollout_does_not_import_torch() -> None:
    code = "import sys, maze.rollout; print('torch' in sys.modules)"
    result = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
