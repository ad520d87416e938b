"""Observation and action spaces per sub-step of a structured env."""

from __future__ import annotations

from abc import abstractmethod

from gymnasium import spaces
from maze.env.core._meta import StackTransparentMeta
from maze.env.core.actor import StepKeyType

__all__ = ["StructuredEnvSpacesMixin"]


class StructuredEnvSpacesMixin(metaclass=StackTransparentMeta):
    """Spaces of a structured env: one dict space per sub-step key.

    ``observation_space`` and ``action_space`` are the spaces of the sub-step that acts
    next; ``*_spaces_dict`` hold all of them.
    """

    @property
    @abstractmethod
    def observation_spaces_dict(self) -> dict[StepKeyType, spaces.Dict]:
        """Observation space of every sub-step."""

    @property
    @abstractmethod
    def action_spaces_dict(self) -> dict[StepKeyType, spaces.Dict]:
        """Action space of every sub-step."""
