"""AgentDeployment, ExternalCoreEnv and PolicyExecutor: run a trained agent inside a production loop.

This package is still being built; see the root README for its status.
"""

from importlib.metadata import version as _version

__version__ = _version("maze-deploy")

__all__ = ["__version__"]
