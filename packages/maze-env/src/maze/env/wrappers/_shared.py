"""Building blocks shared by the built-in wrappers.

Structured envs have one observation and one action space per sub-step key, and the
spaces may differ between sub-steps. The base classes here let a wrapper define its
transformation per sub-step (``step_observation(observation, step_key)`` and friends);
they route live observations and actions to the sub-step that produced or consumes them
and apply the same transformation to the per-sub-step dicts of
``get_observation_and_action_dicts`` (trajectory conversion).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable, Mapping
from numbers import Integral, Real
from typing import Any, Callable, Literal, Optional, TypeVar

import numpy as np
from gymnasium import spaces
from maze.env.core.actor import ActorID, StepKeyType
from maze.env.core.mixins import TimeEnvMixin
from maze.env.core.spaces_mixin import StructuredEnvSpacesMixin
from maze.env.errors import ConfigurationError
from maze.env.utils.factory import Factory, to_plain_config
from maze.env.wrappers.wrapper import ActionWrapper, EnvType, ObservationWrapper

__all__ = [
    "StepObservationWrapper",
    "StepActionWrapper",
    "StepSpacesWrapper",
    "PlainEnvStructureMixin",
    "inner_spaces_dict",
    "dict_keys_by_step",
    "unknown_key_error",
    "check_config_keys",
    "env_time_source",
    "checked_int",
    "checked_real",
    "checked_mapping",
    "instantiate_for_space",
]

StepDict = Optional[dict[StepKeyType, Any]]
T = TypeVar("T")

_FLAT_ACTOR = ActorID(0, 0)


def inner_spaces_dict(env: Any, kind: Literal["observation", "action"]) -> dict[StepKeyType, spaces.Space]:
    """The spaces of ``env`` per sub-step key.

    Structured (maze) envs provide them directly; a plain gymnasium env counts as a single
    sub-step ``0`` with its ``observation_space`` / ``action_space``.
    """
    if isinstance(env, StructuredEnvSpacesMixin):
        return dict(getattr(env, f"{kind}_spaces_dict"))
    return {0: getattr(env, f"{kind}_space")}


def dict_keys_by_step(spaces_dict: Mapping[StepKeyType, spaces.Space]) -> dict[StepKeyType, list[str]]:
    """The keys of every sub-step's dict space (an empty list for non-dict spaces)."""
    return {
        step_key: list(space.spaces) if isinstance(space, spaces.Dict) else []
        for step_key, space in spaces_dict.items()
    }


def unknown_key_error(
    owner: str, kind: str, key: str, spaces_dict: Mapping[StepKeyType, spaces.Space]
) -> ConfigurationError:
    """The error for a config naming a dict key that exists in no sub-step's space.

    Args:
        owner: Name of the wrapper whose config is wrong.
        kind: ``"observation"`` or ``"action"``.
        key: The unknown key.
        spaces_dict: The spaces per sub-step key the config refers to.
    """
    existing = "; ".join(f"sub-step {step!r}: {keys}" for step, keys in dict_keys_by_step(spaces_dict).items())
    return ConfigurationError(
        f"{owner}: the {kind} key {key!r} exists in no sub-step of the wrapped env. "
        f"Use one of the existing {kind} keys ({existing})."
    )


def check_config_keys(
    owner: str, kind: str, config_keys: Iterable[str], spaces_dict: Mapping[StepKeyType, spaces.Space]
) -> dict[StepKeyType, list[str]]:
    """Checks that every configured key exists in some sub-step; returns the keys found per sub-step.

    Raises:
        ConfigurationError: A key exists in no sub-step (the message lists the existing keys).
    """
    keys_by_step = dict_keys_by_step(spaces_dict)
    found = {step_key: [key for key in config_keys if key in keys] for step_key, keys in keys_by_step.items()}
    for key in config_keys:
        if not any(key in keys for keys in found.values()):
            raise unknown_key_error(owner, kind, key, spaces_dict)
    return found


def checked_int(owner: str, name: str, value: Any, minimum: int) -> int:
    """``value`` as an int, checked to be an integer (not a bool) of at least ``minimum``.

    Raises:
        ConfigurationError: Naming ``owner``, the argument ``name`` and what is expected.
    """
    if isinstance(value, bool) or not isinstance(value, Integral) or value < minimum:
        raise ConfigurationError(f"{owner}: {name} must be an int >= {minimum}, got {value!r}")
    return int(value)


def checked_real(owner: str, name: str, value: Any) -> float:
    """``value`` as a float, checked to be a real number (not a bool) other than NaN.

    Raises:
        ConfigurationError: Naming ``owner``, the argument ``name`` and what is expected.
    """
    if isinstance(value, bool) or not isinstance(value, Real) or np.isnan(value):
        raise ConfigurationError(f"{owner}: {name} must be a number (int or float, not NaN), got {value!r}")
    return float(value)


def checked_mapping(owner: str, name: str, value: Any, expected: str) -> dict[str, Any]:
    """``value`` (a mapping, also an omegaconf one) as a plain dict.

    Raises:
        ConfigurationError: ``value`` is no mapping; the message names ``owner``, the
            argument ``name`` and the ``expected`` layout (e.g. ``"{action_key: {num_bins: 5}}"``).
    """
    plain = to_plain_config(value)
    if not isinstance(plain, Mapping):
        raise ConfigurationError(f"{owner}: {name} must be a mapping {expected}, got {value!r}")
    return dict(plain)


def instantiate_for_space(
    factory: Factory[T], target: Any, space: spaces.Space, config: Mapping[str, Any], context: str
) -> T:
    """Builds a per-observation component (strategy, pre-processor) for ``space``.

    Args:
        factory: The factory of the component's base type.
        target: A short name or dotted path, a class or a full config of the component.
        space: Passed as ``observation_space``.
        config: Further keyword arguments.
        context: Where the component is configured; prefixes configuration errors.

    Raises:
        ConfigurationError: The factory's error, prefixed with ``context``.
    """
    try:
        return factory.instantiate(
            {"_target_": target} if isinstance(target, str) else target, observation_space=space, **config
        )
    except ConfigurationError as error:
        raise ConfigurationError(f"{context}: {error}") from None


def env_time_source(env: Any) -> Optional[Callable[[], int]]:
    """``env.get_env_time`` when ``env`` (or an env inside its stack) has an env time, else None.

    Multi-step envs advance their env time once per env step, not once per sub-step, so
    wrappers that count steps prefer it over counting ``step()`` calls.
    """
    return env.get_env_time if isinstance(env, TimeEnvMixin) else None


def _map_step_dict(values: StepDict, transform: Callable[[Any, StepKeyType], Any]) -> StepDict:
    """Applies ``transform(value, step_key)`` to every entry of a per-sub-step dict (None stays None)."""
    if values is None:
        return None
    return {step_key: transform(value, step_key) for step_key, value in values.items()}


class _StepKeyLookup:
    """Finds the sub-step key of the actor that acts next, skipping the lookup for single-step envs."""

    env: Any
    _only_key: Optional[StepKeyType]

    def _init_step_keys(self, step_keys: Iterable[StepKeyType]) -> None:
        keys = list(step_keys)
        self._only_key = keys[0] if len(keys) == 1 else None

    def _step_key(self) -> StepKeyType:
        return self._only_key if self._only_key is not None else self.env.actor_id()[0]


class StepObservationWrapper(_StepKeyLookup, ObservationWrapper[EnvType]):
    """An observation wrapper whose transformation depends on the sub-step.

    Subclasses implement :meth:`step_observation` and, when the spaces change,
    :attr:`observation_spaces_dict`.
    """

    def __init__(self, env: EnvType) -> None:
        super().__init__(env)
        self._init_step_keys(inner_spaces_dict(env, "observation"))

    @abstractmethod
    def step_observation(self, observation: Any, step_key: StepKeyType) -> Any:
        """Returns the transformed observation of sub-step ``step_key``."""

    def observation(self, observation: Any) -> Any:
        """Transforms an observation of the actor that acts next."""
        return self.step_observation(observation, self._step_key())

    @property
    def observation_space(self) -> spaces.Space:
        """Observation space of the actor that acts next."""
        return self.observation_spaces_dict[self._step_key()]

    def get_observation_and_action_dicts(
        self, maze_state: Any, maze_action: Any, first_step_in_episode: bool
    ) -> tuple[StepDict, StepDict]:
        """Applies :meth:`step_observation` per sub-step to the inner env's conversion."""
        observations, actions = self.env.get_observation_and_action_dicts(
            maze_state, maze_action, first_step_in_episode
        )
        return _map_step_dict(observations, self.step_observation), actions


class StepActionWrapper(_StepKeyLookup, ActionWrapper[EnvType]):
    """An action wrapper whose transformation depends on the sub-step.

    Subclasses implement :meth:`step_action`, :meth:`step_reverse_action` and, when the
    spaces change, :attr:`action_spaces_dict`.
    """

    def __init__(self, env: EnvType) -> None:
        super().__init__(env)
        self._init_step_keys(inner_spaces_dict(env, "action"))

    @abstractmethod
    def step_action(self, action: Any, step_key: StepKeyType) -> Any:
        """Maps an action of sub-step ``step_key`` to the inner env's action."""

    @abstractmethod
    def step_reverse_action(self, action: Any, step_key: StepKeyType) -> Any:
        """Maps an inner env action of sub-step ``step_key`` back to this wrapper's action."""

    def action(self, action: Any) -> Any:
        """Maps an action of the actor that acts next to the inner env's action."""
        return self.step_action(action, self._step_key())

    def reverse_action(self, action: Any) -> Any:
        """Maps an inner env action of the actor that acts next back to this wrapper's action."""
        return self.step_reverse_action(action, self._step_key())

    @property
    def action_space(self) -> spaces.Space:
        """Action space of the actor that acts next."""
        return self.action_spaces_dict[self._step_key()]

    def get_observation_and_action_dicts(
        self, maze_state: Any, maze_action: Any, first_step_in_episode: bool
    ) -> tuple[StepDict, StepDict]:
        """Applies :meth:`step_reverse_action` per sub-step to the inner env's conversion."""
        observations, actions = self.env.get_observation_and_action_dicts(
            maze_state, maze_action, first_step_in_episode
        )
        return observations, _map_step_dict(actions, self.step_reverse_action)


class StepSpacesWrapper(StepObservationWrapper[EnvType], StepActionWrapper[EnvType]):
    """A wrapper that transforms both observations and actions per sub-step."""

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict]:
        """Transforms the action, steps the inner env and transforms the observation."""
        observation, reward, terminated, truncated, info = self.env.step(self.action(action))
        return self.observation(observation), reward, terminated, truncated, info

    def get_observation_and_action_dicts(
        self, maze_state: Any, maze_action: Any, first_step_in_episode: bool
    ) -> tuple[StepDict, StepDict]:
        """Applies both per-sub-step transformations to the inner env's conversion."""
        observations, actions = self.env.get_observation_and_action_dicts(
            maze_state, maze_action, first_step_in_episode
        )
        return _map_step_dict(observations, self.step_observation), _map_step_dict(actions, self.step_reverse_action)


class PlainEnvStructureMixin:
    """Lets a wrapper of a plain gymnasium env act as a flat structured env.

    Around a plain gymnasium env (one without ``*_spaces_dict``) the structured-env members
    that the wrapper does not define itself describe a single sub-step ``0`` with one agent:
    ``actor_id()`` is ``ActorID(0, 0)``, ``agent_counts_dict`` is ``{0: 1}`` and the spaces
    dicts are ``{0: space}``. Around a structured env they pass through to the inner env.
    Put the mixin before the wrapper base class.
    """

    env: Any

    def __init__(self, env: Any) -> None:
        super().__init__(env)  # type: ignore[call-arg]
        self._plain_spaces: Optional[dict[str, dict[StepKeyType, spaces.Space]]] = (
            None
            if isinstance(env, StructuredEnvSpacesMixin)
            else {kind: inner_spaces_dict(env, kind) for kind in ("observation", "action")}
        )

    @property
    def observation_spaces_dict(self) -> dict[StepKeyType, spaces.Space]:
        """Observation space per sub-step key (``{0: observation_space}`` around a plain env)."""
        plain = self._plain_spaces
        return self.env.observation_spaces_dict if plain is None else plain["observation"]

    @property
    def action_spaces_dict(self) -> dict[StepKeyType, spaces.Space]:
        """Action space per sub-step key (``{0: action_space}`` around a plain env)."""
        plain = self._plain_spaces
        return self.env.action_spaces_dict if plain is None else plain["action"]

    @property
    def agent_counts_dict(self) -> dict[StepKeyType, int]:
        """Agents per sub-step key (``{0: 1}`` around a plain env)."""
        return self.env.agent_counts_dict if self._plain_spaces is None else {0: 1}

    def actor_id(self) -> ActorID:
        """The actor that acts next (always ``ActorID(0, 0)`` around a plain env)."""
        return self.env.actor_id() if self._plain_spaces is None else _FLAT_ACTOR

    def is_actor_done(self) -> bool:
        """Whether the actor that just acted is done (never around a plain env)."""
        return self.env.is_actor_done() if self._plain_spaces is None else False
