"""The `maze-run` command line, the Hydra config tree `maze.conf` and the RunContext Python API.

This package is still being built; see the root README for its status.
"""

from importlib.metadata import version as _version

__version__ = _version("maze-rl")

__all__ = ["__version__"]
