"""Rollout runners (sequential, parallel), episode recording and trajectory datasets. Never imports torch.

This package is still being built; see the root README for its status.
"""

from importlib.metadata import version as _version

from maze.rollout.runner import Runner

__version__ = _version("maze-rollout")

__all__ = ["Runner", "__version__"]
