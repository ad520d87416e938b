"""Perception blocks, inference graphs, model composers, TorchPolicy, critics and checkpoints.

This package is still being built; see the root README for its status.
"""

from importlib.metadata import version as _version

__version__ = _version("maze-perception")

__all__ = ["__version__"]
