"""The installed distribution exposes its leaf and its version."""

from importlib.metadata import version

import maze.train


def test_leaf_reports_installed_version() -> None:
    assert maze.train.__version__ == version("maze-train")


def test_leaf_is_installed_not_imported_from_the_source_tree() -> None:
    assert "site-packages" in maze.train.__file__
