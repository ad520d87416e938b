"""Errors maze raises on bad input. Each message names the culprit and the fix."""

from __future__ import annotations

__all__ = ["MazeError", "ConfigurationError", "InvalidActionError", "EnvWorkerError", "SimulationUnsupportedError"]


class MazeError(Exception):
    """Base of all maze errors."""


class ConfigurationError(MazeError, ValueError):
    """A config names an unknown class, a wrong argument or a value of the wrong type."""


class InvalidActionError(MazeError, ValueError):
    """An action does not lie in the action space of the actor that was asked to act."""


class EnvWorkerError(MazeError, RuntimeError):
    """An env inside a vector env worker raised, or its worker process died."""


class SimulationUnsupportedError(MazeError, TypeError):
    """An env was asked to act as a simulation (clone, set to a MazeState) but lacks the ``SimulatedEnvMixin``."""
