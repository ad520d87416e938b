"""Notebook and keyboard trajectory viewers, statistics plots and inference-graph PDFs. Never imports torch.

This package is still being built; see the root README for its status.
"""

from importlib.metadata import version as _version

__version__ = _version("maze-viz")

__all__ = ["__version__"]
