"""Trainers (A2C, PPO, IMPALA, SAC/SACfD, BC, ES), training runners, evaluators and TensorBoard logging.

This package is still being built; see the root README for its status.
"""

from importlib.metadata import version as _version

__version__ = _version("maze-train")

__all__ = ["__version__"]
