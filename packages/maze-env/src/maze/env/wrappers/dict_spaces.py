"""Wrappers that add or remove the dict layer of observation and action spaces.

* :class:`NoDictObservationWrapper`, :class:`NoDictActionWrapper` and
  :class:`NoDictSpacesWrapper` replace single-key dict spaces with the space they
  contain, so that libraries without dict-space support (e.g. stable-baselines3) can use
  the env: ``NoDictSpacesWrapper(GymMazeEnv("CartPole-v1"))`` has the observation space
  ``Box(4,)`` and the action space ``Discrete(2)``.
* :class:`DictObservationWrapper` and :class:`DictActionWrapper` do the opposite for envs
  that do not use dict spaces yet (``{'observation': obs}``, ``{'action': a}``, and
  ``action_0..n`` for Tuple actions), with the same mapping as
  :class:`~maze.env.gym_adapter.gym_maze_env.GymMazeEnv`.

All of them work per sub-step of a structured env.
"""

from __future__ import annotations

from typing import Any, Literal

from gymnasium import spaces
from maze.env.core.actor import StepKeyType
from maze.env.errors import ConfigurationError
from maze.env.gym_adapter.conversion import GymActionConversion, GymObservationConversion
from maze.env.wrappers._shared import (
    PlainEnvStructureMixin,
    StepActionWrapper,
    StepObservationWrapper,
    StepSpacesWrapper,
    inner_spaces_dict,
)
from maze.env.wrappers.wrapper import EnvType

__all__ = [
    "NoDictObservationWrapper",
    "NoDictActionWrapper",
    "NoDictSpacesWrapper",
    "DictObservationWrapper",
    "DictActionWrapper",
]


def _sole_entries(
    owner: str, env: Any, kind: Literal["observation", "action"]
) -> tuple[dict[StepKeyType, str], dict[StepKeyType, spaces.Space]]:
    """The single key and contained space of every sub-step's dict space.

    Raises:
        ConfigurationError: A sub-step's space is not a dict space with exactly one key.
    """
    keys: dict[StepKeyType, str] = {}
    contained: dict[StepKeyType, spaces.Space] = {}
    for step_key, space in inner_spaces_dict(env, kind).items():
        if not isinstance(space, spaces.Dict) or len(space.spaces) != 1:
            found = (
                f"the keys {list(space.spaces)}" if isinstance(space, spaces.Dict) else f"the non-dict space {space}"
            )
            raise ConfigurationError(
                f"{owner} needs a dict {kind} space with exactly one key in every sub-step, but sub-step {step_key!r} "
                f"has {found}. Reduce the {kind}s to a single key first (e.g. with a pre-processing or split "
                f"wrapper) or drop {owner}."
            )
        ((keys[step_key], contained[step_key]),) = space.spaces.items()
    return keys, contained


class _NoDictObservationMixin:
    """Observations of the sole key of each sub-step's dict space."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)  # type: ignore[call-arg]
        self._observation_keys, self._observation_spaces = _sole_entries(type(self).__name__, env, "observation")

    @property
    def observation_spaces_dict(self) -> dict[StepKeyType, spaces.Space]:
        """The space inside each sub-step's dict observation space."""
        return self._observation_spaces

    def step_observation(self, observation: dict[str, Any], step_key: StepKeyType) -> Any:
        """The value of the observation's single key."""
        return observation[self._observation_keys[step_key]]


class _NoDictActionMixin:
    """Actions of the space inside each sub-step's single-key dict action space."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)  # type: ignore[call-arg]
        self._action_keys, self._action_spaces = _sole_entries(type(self).__name__, env, "action")

    @property
    def action_spaces_dict(self) -> dict[StepKeyType, spaces.Space]:
        """The space inside each sub-step's dict action space."""
        return self._action_spaces

    def step_action(self, action: Any, step_key: StepKeyType) -> dict[str, Any]:
        """The action as the inner env's single-key dict."""
        return {self._action_keys[step_key]: action}

    def step_reverse_action(self, action: dict[str, Any], step_key: StepKeyType) -> Any:
        """The value of the inner env action's single key."""
        return action[self._action_keys[step_key]]


class NoDictObservationWrapper(_NoDictObservationMixin, StepObservationWrapper[EnvType]):
    """Replaces every sub-step's single-key dict observation space with the space it contains.

    Args:
        env: The env to wrap; each sub-step's observation space must be a dict with one key.
    """


class NoDictActionWrapper(_NoDictActionMixin, StepActionWrapper[EnvType]):
    """Replaces every sub-step's single-key dict action space with the space it contains.

    Args:
        env: The env to wrap; each sub-step's action space must be a dict with one key.
    """


class NoDictSpacesWrapper(_NoDictObservationMixin, _NoDictActionMixin, StepSpacesWrapper[EnvType]):
    """Replaces single-key dict observation and action spaces with the spaces they contain.

    The result is a plain gymnasium env for flat envs (it passes gymnasium's
    ``check_env``), e.g. for stable-baselines3.

    Args:
        env: The env to wrap; each sub-step's observation and action space must be a dict
            with one key.
    """


class DictObservationWrapper(PlainEnvStructureMixin, StepObservationWrapper[EnvType]):
    """Turns non-dict observation spaces into ``Dict(observation=...)``; dict spaces pass through.

    Around a plain gymnasium env the wrapper acts as a flat structured env (see
    :class:`~maze.env.wrappers._shared.PlainEnvStructureMixin`), so vector envs and the env
    checker accept it.

    Args:
        env: The env to wrap (a structured env or a plain gymnasium env).
    """

    def __init__(self, env: EnvType) -> None:
        super().__init__(env)
        self._conversions = {
            step_key: GymObservationConversion(space)
            for step_key, space in inner_spaces_dict(env, "observation").items()
        }
        self._observation_spaces = {step_key: conv.space() for step_key, conv in self._conversions.items()}

    @property
    def observation_spaces_dict(self) -> dict[StepKeyType, spaces.Space]:
        """The dict observation space of every sub-step."""
        return self._observation_spaces

    def step_observation(self, observation: Any, step_key: StepKeyType) -> dict[str, Any]:
        """The observation as a dict."""
        return self._conversions[step_key].maze_to_space(observation)


class DictActionWrapper(PlainEnvStructureMixin, StepActionWrapper[EnvType]):
    """Turns single action spaces into ``Dict(action=...)`` and Tuple spaces into ``Dict(action_0, ..)``.

    Dict action spaces pass through unchanged. Around a plain gymnasium env the wrapper acts
    as a flat structured env (see :class:`~maze.env.wrappers._shared.PlainEnvStructureMixin`).

    Args:
        env: The env to wrap (a structured env or a plain gymnasium env).
    """

    def __init__(self, env: EnvType) -> None:
        super().__init__(env)
        self._conversions = {
            step_key: GymActionConversion(space) for step_key, space in inner_spaces_dict(env, "action").items()
        }
        self._action_spaces = {step_key: conv.space() for step_key, conv in self._conversions.items()}

    @property
    def action_spaces_dict(self) -> dict[StepKeyType, spaces.Space]:
        """The dict action space of every sub-step."""
        return self._action_spaces

    def step_action(self, action: dict[str, Any], step_key: StepKeyType) -> Any:
        """The dict action in the inner env's format (single value, tuple or dict)."""
        return self._conversions[step_key].space_to_maze(action, None)

    def step_reverse_action(self, action: Any, step_key: StepKeyType) -> dict[str, Any]:
        """The inner env's action as a dict."""
        return self._conversions[step_key].maze_to_space(action)
