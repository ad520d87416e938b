"""Dict observation and action spaces with alphabetically sorted keys."""

from __future__ import annotations

from typing import Any

from gymnasium import spaces
from maze.env.core.actor import StepKeyType
from maze.env.wrappers._shared import StepSpacesWrapper, inner_spaces_dict
from maze.env.wrappers.wrapper import EnvType

__all__ = ["SortedSpacesWrapper"]


def _sorted_spaces(
    spaces_dict: dict[StepKeyType, spaces.Space],
) -> tuple[dict[StepKeyType, spaces.Space], dict[StepKeyType, list[str]], dict[StepKeyType, list[str]]]:
    """Sorts every dict space of ``spaces_dict``.

    Returns:
        The sorted spaces, and per sub-step the sorted and the original key order
        (both empty for non-dict spaces, which pass through).
    """
    sorted_spaces: dict[StepKeyType, spaces.Space] = {}
    sorted_keys: dict[StepKeyType, list[str]] = {}
    original_keys: dict[StepKeyType, list[str]] = {}
    for step_key, space in spaces_dict.items():
        if isinstance(space, spaces.Dict):
            original_keys[step_key] = list(space.spaces)
            sorted_keys[step_key] = sorted(space.spaces)
            sorted_spaces[step_key] = spaces.Dict([(key, space.spaces[key]) for key in sorted_keys[step_key]])
        else:
            original_keys[step_key] = sorted_keys[step_key] = []
            sorted_spaces[step_key] = space
    return sorted_spaces, sorted_keys, original_keys


def _reorder(value: Any, keys: list[str]) -> Any:
    """``value`` as a dict with the order ``keys`` (non-dict values pass through)."""
    return {key: value[key] for key in keys} if keys else value


class SortedSpacesWrapper(StepSpacesWrapper[EnvType]):
    """Sorts the keys of every sub-step's dict observation and action space alphabetically.

    Observations are returned with their keys in that order; actions are handed to the
    inner env in the inner env's key order. Non-dict spaces pass through unchanged.

    Args:
        env: The env to wrap.
    """

    def __init__(self, env: EnvType) -> None:
        super().__init__(env)
        self._observation_spaces, self._observation_keys, _ = _sorted_spaces(inner_spaces_dict(env, "observation"))
        self._action_spaces, self._action_keys, self._inner_action_keys = _sorted_spaces(
            inner_spaces_dict(env, "action")
        )

    @property
    def observation_spaces_dict(self) -> dict[StepKeyType, spaces.Space]:
        """Observation spaces per sub-step, with sorted keys."""
        return self._observation_spaces

    @property
    def action_spaces_dict(self) -> dict[StepKeyType, spaces.Space]:
        """Action spaces per sub-step, with sorted keys."""
        return self._action_spaces

    def step_observation(self, observation: Any, step_key: StepKeyType) -> Any:
        """The observation with sorted keys."""
        return _reorder(observation, self._observation_keys[step_key])

    def step_action(self, action: Any, step_key: StepKeyType) -> Any:
        """The action in the inner env's key order."""
        return _reorder(action, self._inner_action_keys[step_key])

    def step_reverse_action(self, action: Any, step_key: StepKeyType) -> Any:
        """The inner env's action with sorted keys."""
        return _reorder(action, self._action_keys[step_key])
