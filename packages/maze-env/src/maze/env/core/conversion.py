"""Conversions between the simulation's objects and the agent's gymnasium spaces."""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

from gymnasium import spaces
from maze.env.core._meta import StackTransparentMeta

__all__ = ["ObservationConversionInterface", "ActionConversionInterface"]


class ObservationConversionInterface(metaclass=StackTransparentMeta):
    """Turns a MazeState into an observation of a dict space (and optionally back)."""

    @abstractmethod
    def maze_to_space(self, maze_state: Any) -> dict[str, Any]:
        """Returns the observation for ``maze_state``; it must lie in :meth:`space`."""

    def space_to_maze(self, observation: dict[str, Any]) -> Any:
        """Rebuilds a MazeState from an observation, where the conversion allows it."""
        raise NotImplementedError(f"{type(self).__name__} cannot turn observations back into MazeStates")

    @abstractmethod
    def space(self) -> spaces.Dict:
        """The observation space."""


class ActionConversionInterface(metaclass=StackTransparentMeta):
    """Turns an agent action of a dict space into a MazeAction (and back)."""

    @abstractmethod
    def space_to_maze(self, action: dict[str, Any], maze_state: Any) -> Any:
        """Returns the MazeAction for ``action`` given the current ``maze_state``."""

    def maze_to_space(self, maze_action: Any) -> dict[str, Any]:
        """Returns the agent action that corresponds to ``maze_action``."""
        raise NotImplementedError(f"{type(self).__name__} cannot turn MazeActions back into actions")

    @abstractmethod
    def space(self) -> spaces.Dict:
        """The action space."""

    def noop_action(self) -> Any:
        """The action that does nothing, where the env has one."""
        raise NotImplementedError(f"{type(self).__name__} defines no no-op action")
