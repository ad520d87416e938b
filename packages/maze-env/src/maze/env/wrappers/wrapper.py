"""The wrapper framework: wrappers that keep the full MazeEnv interface of the env inside."""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, Generic, Optional, TypeVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from maze.env.core._meta import StackTransparentMeta
from maze.env.core.actor import ActorID, StepKeyType

__all__ = ["Wrapper", "ObservationWrapper", "ActionWrapper", "RewardWrapper"]

EnvType = TypeVar("EnvType")


class Wrapper(gym.Env, Generic[EnvType], metaclass=StackTransparentMeta):
    """Base of every maze wrapper.

    A wrapper behaves like the env it wraps: calls pass from the outermost wrapper inward,
    attributes a wrapper does not define are looked up on the inner env, and ``isinstance``
    sees the whole stack (``isinstance(TimeLimitWrapper.wrap(GymMazeEnv(...)), GymMazeEnv)``
    is True). Wrappers are ``gymnasium.Env`` s with gymnasium semantics.

    Args:
        env: The env (or wrapper) to wrap.
    """

    _is_maze_wrapper = True

    def __init__(self, env: EnvType) -> None:
        self.env = env

    @classmethod
    def wrap(cls, env: Any, **kwargs: Any) -> Any:
        """Wraps ``env`` with this wrapper class; the documented way to build a stack."""
        return cls(env, **kwargs)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "env":
            raise AttributeError(name)
        return getattr(self.env, name)

    # --- gymnasium API -------------------------------------------------------------------

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict]:
        """Steps the inner env."""
        return self.env.step(action)

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[Any, dict]:
        """Resets the inner env."""
        return self.env.reset(seed=seed, options=options)

    def render(self) -> Any:
        """Renders the inner env."""
        return self.env.render()

    def close(self) -> None:
        """Closes the inner env."""
        self.env.close()

    @property
    def unwrapped(self) -> Any:
        """The innermost env of the stack."""
        return self.env.unwrapped

    @property
    def np_random(self) -> np.random.Generator:
        """The innermost env's random generator."""
        return self.env.np_random

    @property
    def render_mode(self) -> Optional[str]:  # type: ignore[override]
        """The inner env's render mode."""
        return self.env.render_mode

    @property
    def metadata(self) -> dict[str, Any]:  # type: ignore[override]
        """The inner env's metadata."""
        return self.env.metadata

    @property
    def spec(self) -> Any:  # type: ignore[override]
        """The inner env's spec."""
        return self.env.spec

    # --- spaces and structured env -------------------------------------------------------

    @property
    def observation_space(self) -> spaces.Space:
        """Observation space of the actor that acts next."""
        return self.env.observation_space

    @property
    def action_space(self) -> spaces.Space:
        """Action space of the actor that acts next."""
        return self.env.action_space

    @property
    def observation_spaces_dict(self) -> dict[StepKeyType, spaces.Space]:
        """Observation space per sub-step key."""
        return self.env.observation_spaces_dict

    @property
    def action_spaces_dict(self) -> dict[StepKeyType, spaces.Space]:
        """Action space per sub-step key."""
        return self.env.action_spaces_dict

    def actor_id(self) -> ActorID:
        """The actor that acts next."""
        return self.env.actor_id()

    def is_actor_done(self) -> bool:
        """True when the actor that just acted is done for this episode."""
        return self.env.is_actor_done()

    def get_observation_and_action_dicts(
        self, maze_state: Any, maze_action: Any, first_step_in_episode: bool
    ) -> tuple[Optional[dict[StepKeyType, Any]], Optional[dict[StepKeyType, Any]]]:
        """Converts a recorded state and action as seen from this point of the stack."""
        return self.env.get_observation_and_action_dicts(maze_state, maze_action, first_step_in_episode)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.env!r})"

    def __str__(self) -> str:
        return repr(self)


class ObservationWrapper(Wrapper[EnvType]):
    """Transforms every observation with :meth:`observation`.

    Wrappers that change the observation spaces override :attr:`observation_spaces_dict`;
    ``observation_space`` then follows the actor that acts next.
    """

    @abstractmethod
    def observation(self, observation: Any) -> Any:
        """Returns the transformed observation."""

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict]:
        """Steps the inner env and transforms the observation."""
        observation, reward, terminated, truncated, info = self.env.step(action)
        return self.observation(observation), reward, terminated, truncated, info

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[Any, dict]:
        """Resets the inner env and transforms the observation."""
        observation, info = self.env.reset(seed=seed, options=options)
        return self.observation(observation), info

    @property
    def observation_space(self) -> spaces.Space:
        """Observation space of the actor that acts next."""
        return self.observation_spaces_dict[self.env.actor_id()[0]]

    def get_observation_and_action_dicts(
        self, maze_state: Any, maze_action: Any, first_step_in_episode: bool
    ) -> tuple[Optional[dict[StepKeyType, Any]], Optional[dict[StepKeyType, Any]]]:
        """Applies :meth:`observation` to the observations converted by the inner env."""
        observations, actions = self.env.get_observation_and_action_dicts(
            maze_state, maze_action, first_step_in_episode
        )
        if observations is not None:
            observations = {key: self.observation(value) for key, value in observations.items()}
        return observations, actions


class ActionWrapper(Wrapper[EnvType]):
    """Transforms every action with :meth:`action` before the inner env sees it.

    Wrappers that change the action spaces override :attr:`action_spaces_dict`;
    ``action_space`` then follows the actor that acts next.
    """

    @abstractmethod
    def action(self, action: Any) -> Any:
        """Maps an action of this wrapper's space to one of the inner env's space."""

    @abstractmethod
    def reverse_action(self, action: Any) -> Any:
        """Maps an action of the inner env's space back to this wrapper's space."""

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict]:
        """Transforms the action and steps the inner env."""
        return self.env.step(self.action(action))

    @property
    def action_space(self) -> spaces.Space:
        """Action space of the actor that acts next."""
        return self.action_spaces_dict[self.env.actor_id()[0]]

    def get_observation_and_action_dicts(
        self, maze_state: Any, maze_action: Any, first_step_in_episode: bool
    ) -> tuple[Optional[dict[StepKeyType, Any]], Optional[dict[StepKeyType, Any]]]:
        """Applies :meth:`reverse_action` to the actions converted by the inner env."""
        observations, actions = self.env.get_observation_and_action_dicts(
            maze_state, maze_action, first_step_in_episode
        )
        if actions is not None:
            actions = {key: self.reverse_action(value) for key, value in actions.items()}
        return observations, actions


class RewardWrapper(Wrapper[EnvType]):
    """Transforms every reward with :meth:`reward`."""

    @abstractmethod
    def reward(self, reward: Any) -> Any:
        """Returns the transformed reward."""

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict]:
        """Steps the inner env and transforms the reward."""
        observation, reward, terminated, truncated, info = self.env.step(action)
        return observation, self.reward(reward), terminated, truncated, info
