"""Observation and action conversions between plain gymnasium spaces and dict spaces."""

from __future__ import annotations

from typing import Any

from gymnasium import spaces
from maze.env.core.conversion import ActionConversionInterface, ObservationConversionInterface

__all__ = ["GymObservationConversion", "GymActionConversion"]


class GymObservationConversion(ObservationConversionInterface):
    """A dict observation passes through; any other becomes ``{'observation': obs}``.

    Args:
        observation_space: The gymnasium env's observation space.
    """

    def __init__(self, observation_space: spaces.Space) -> None:
        self._is_dict = isinstance(observation_space, spaces.Dict)
        self._space = observation_space if self._is_dict else spaces.Dict({"observation": observation_space})

    def maze_to_space(self, maze_state: Any) -> dict[str, Any]:
        """The gymnasium observation as a dict."""
        return maze_state if self._is_dict else {"observation": maze_state}

    def space_to_maze(self, observation: dict[str, Any]) -> Any:
        """The gymnasium observation inside a dict observation."""
        return observation if self._is_dict else observation["observation"]

    def space(self) -> spaces.Dict:
        """The dict observation space."""
        return self._space


class GymActionConversion(ActionConversionInterface):
    """Dict actions pass through; Tuple actions become ``action_0..n``; others ``{'action': a}``.

    Args:
        action_space: The gymnasium env's action space.
    """

    def __init__(self, action_space: spaces.Space) -> None:
        self._kind = (
            "dict"
            if isinstance(action_space, spaces.Dict)
            else "tuple"
            if isinstance(action_space, spaces.Tuple)
            else "single"
        )
        if self._kind == "dict":
            self._space = action_space
        elif self._kind == "tuple":
            self._space = spaces.Dict({f"action_{i}": sub for i, sub in enumerate(action_space.spaces)})
            self._tuple_keys = [f"action_{i}" for i in range(len(action_space.spaces))]
        else:
            self._space = spaces.Dict({"action": action_space})

    def space_to_maze(self, action: dict[str, Any], maze_state: Any) -> Any:
        """The gymnasium action inside a dict action."""
        if self._kind == "single":
            return action["action"]
        if self._kind == "dict":
            return action
        return tuple(action[key] for key in self._tuple_keys)

    def maze_to_space(self, maze_action: Any) -> dict[str, Any]:
        """The gymnasium action as a dict action."""
        if self._kind == "single":
            return {"action": maze_action}
        if self._kind == "dict":
            return maze_action
        return dict(zip(self._tuple_keys, maze_action, strict=True))

    def space(self) -> spaces.Dict:
        """The dict action space."""
        return self._space
