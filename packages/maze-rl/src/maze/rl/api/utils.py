"""Run modes of RunContext and its errors."""

from __future__ import annotations

from enum import Enum

from maze.env.errors import ConfigurationError, MazeError

__all__ = ["InvalidSpecificationError", "RunContextError", "RunMode"]


class RunMode(str, Enum):
    """What a RunContext does, with the root config it composes (``configuration=`` takes the value)."""

    TRAINING = "train"
    ROLLOUT = "rollout"

    @property
    def config_name(self) -> str:
        """The root config of the mode: ``conf_train`` or ``conf_rollout``."""
        return f"conf_{self.value}"


class RunContextError(MazeError, RuntimeError):
    """A RunContext was used in a way it does not support (e.g. ``evaluate()`` before ``train()``)."""


class InvalidSpecificationError(RunContextError, ConfigurationError):
    """An argument of RunContext is invalid or inconsistent; the message names the argument."""
