"""Rollout runners (sequential, parallel), episode recording and trajectory datasets. Never imports torch.

This package is still being built; see the root README for its status.
"""

from importlib.metadata import version as _version

__version__ = _version("maze-rollout")

__all__ = ["__version__"]
