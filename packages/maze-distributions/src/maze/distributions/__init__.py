"""Action probability distributions (categorical, Gaussian, Beta, ...) and the DistributionMapper that picks one per action head.

This package is still being built; see the root README for its status.
"""

from importlib.metadata import version as _version

__version__ = _version("maze-distributions")

__all__ = ["__version__"]
