"""The installed distribution exposes its leaf and its version."""

import subprocess
import sys
from importlib.metadata import version

import maze.viz


def test_leaf_reports_installed_version() -> None:
    assert maze.viz.__version__ == version("maze-viz")


def test_leaf_is_installed_not_imported_from_the_source_tree() -> None:
    assert "site-packages" in maze.viz.__file__


def test_importing_viz_does_not_import_torch() -> None:
    code = "import sys, maze.viz; print('torch' in sys.modules)"
    result = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
